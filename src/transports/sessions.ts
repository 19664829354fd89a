/** A live session on one of the HTTP transports. */
export interface Session {
  readonly id: string;
  close(): Promise<void>;
}

export interface SessionLimits {
  /** Sessions open at once; the memory bound (each keeps a server and its parsed documents). */
  maxSessions: number;
  /** A session with no request for this long is closed. */
  idleMs: number;
  /** A full table evicts a session only once it has had no request for this long. */
  evictableAfterMs: number;
  /**
   * The same floor for a session that has made a tool call or holds a GET stream: a model
   * between two calls may think for a minute, and its session (with its handles) must outlast
   * that under churn.
   */
  engagedEvictableAfterMs: number;
}

/**
 * 5 s between a session's requests before a newcomer may take its place, for a session that has
 * not called a tool: longer than a client's handshake (initialize, initialized, tools/list, first
 * call), so a burst of new clients cannot evict each other mid-handshake. A session that has
 * called a tool keeps its place for 5 minutes of silence: bare `initialize`s at any rate evict
 * each other, never a model thinking between calls (docs/adr/0036-sessions-a-thinking-model-keeps.md).
 */
export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxSessions: 64,
  idleMs: 30 * 60 * 1000,
  evictableAfterMs: 5_000,
  engagedEvictableAfterMs: 5 * 60 * 1000,
};

export type Admission<S> = { ok: true; session: S } | { ok: false; retryAfterSeconds: number };

interface Entry<S> {
  session: S;
  lastSeen: number;
  inFlight: number;
  streams: number;
  /** It has made a tool call: a client at work, not only a handshake. */
  engaged: boolean;
}

/**
 * The sessions of one HTTP transport: bounded in number, and reaped when idle, since the SDK
 * removes a session only on DELETE or a closed stream, and many clients leave without either.
 * A session is idle while none of its requests is in flight; its idle time counts from the start
 * or end of its latest request, whichever came last.
 */
export class SessionRegistry<S extends Session> {
  readonly #sessions = new Map<string, Entry<S>>();
  readonly #limits: SessionLimits;
  readonly #now: () => number;
  readonly #reaper: NodeJS.Timeout;

  constructor(limits: SessionLimits = DEFAULT_SESSION_LIMITS, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
    this.#reaper = setInterval(
      () => void this.reapIdle(),
      Math.max(1000, Math.min(limits.idleMs / 2, 60_000)),
    );
    this.#reaper.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  /**
   * Opens a session if there is room, evicting (and closing) one when the table is full: the
   * longest idle of those past their floor, a session that never called a tool before one that
   * did; otherwise refuses with the seconds until one will be past its floor. Synchronous, so
   * concurrent admissions cannot overfill the table; `open` runs only when admitted.
   */
  admit(open: () => S): Admission<S> {
    if (this.#sessions.size >= this.#limits.maxSessions) {
      const { evict, waitMs } = this.#evictable(this.#now());
      if (!evict) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
      this.#sessions.delete(evict[0]);
      evict[1].session.close().catch(() => {});
    }
    const session = open();
    this.#sessions.set(session.id, {
      session,
      lastSeen: this.#now(),
      inFlight: 0,
      streams: 0,
      engaged: false,
    });
    return { ok: true, session };
  }

  /** The session made a tool call: from now on it keeps its place through a model's pauses. */
  engage(id: string): void {
    const entry = this.#sessions.get(id);
    if (entry) entry.engaged = true;
  }

  /**
   * A request of the session starts: it is in flight until `end`. Undefined when unknown. A
   * `stream` (the server→client GET stream) keeps its session from eviction but not from the
   * idle reaper: a client that holds streams open and sends nothing for `idleMs` is let go, or
   * a few held streams would keep their sessions, and the table, for ever.
   */
  begin(id: string, kind: 'call' | 'stream' = 'call'): S | undefined {
    const entry = this.#sessions.get(id);
    if (!entry) return undefined;
    if (kind === 'stream') entry.streams += 1;
    else entry.inFlight += 1;
    entry.lastSeen = this.#now();
    return entry.session;
  }

  end(id: string, kind: 'call' | 'stream' = 'call'): void {
    const entry = this.#sessions.get(id);
    if (!entry) return;
    if (kind === 'stream') entry.streams = Math.max(0, entry.streams - 1);
    else {
      entry.inFlight = Math.max(0, entry.inFlight - 1);
      entry.lastSeen = this.#now();
    }
  }

  /** The session is still open (not removed, evicted or reaped). */
  has(id: string): boolean {
    return this.#sessions.has(id);
  }

  /** The open sessions, in no particular order. */
  list(): S[] {
    return [...this.#sessions.values()].map((entry) => entry.session);
  }

  remove(id: string): void {
    this.#sessions.delete(id);
  }

  async reapIdle(): Promise<number> {
    const now = this.#now();
    const idle = [...this.#sessions].filter(
      ([, entry]) => entry.inFlight === 0 && now - entry.lastSeen > this.#limits.idleMs,
    );
    for (const [id] of idle) this.#sessions.delete(id);
    await Promise.all(idle.map(([, entry]) => entry.session.close().catch(() => {})));
    return idle.length;
  }

  async closeAll(): Promise<void> {
    clearInterval(this.#reaper);
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(all.map((entry) => entry.session.close().catch(() => {})));
  }

  /**
   * The session to evict, or how long until one may be: a linear scan (the table holds at most
   * `maxSessions` entries). A running call protects its session; a held GET stream does not,
   * or 64 sessions holding streams would keep newcomers out until the idle reaper (30 minutes).
   */
  #evictable(now: number): { evict?: [string, Entry<S>]; waitMs: number } {
    const { evictableAfterMs, engagedEvictableAfterMs } = this.#limits;
    let bare: [string, Entry<S>] | undefined;
    let engaged: [string, Entry<S>] | undefined;
    let waitMs = evictableAfterMs;
    let idleSeen = false;
    for (const pair of this.#sessions) {
      const entry = pair[1];
      if (entry.inFlight > 0) continue;
      // A held stream is a client still listening: the longer floor, never a wall (ADR 0036).
      const kept = entry.engaged || entry.streams > 0;
      const floor = kept ? engagedEvictableAfterMs : evictableAfterMs;
      const idleFor = now - entry.lastSeen;
      if (idleFor >= floor) {
        if (kept) {
          if (!engaged || entry.lastSeen < engaged[1].lastSeen) engaged = pair;
        } else if (!bare || entry.lastSeen < bare[1].lastSeen) bare = pair;
      } else {
        waitMs = idleSeen ? Math.min(waitMs, floor - idleFor) : floor - idleFor;
        idleSeen = true;
      }
    }
    const evict = bare ?? engaged;
    return evict ? { evict, waitMs: 0 } : { waitMs };
  }
}
