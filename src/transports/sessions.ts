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
}

/**
 * 5 s between a session's requests before a newcomer may take its place: longer than a client's
 * handshake (initialize, initialized, tools/list, first call), so a burst of new clients cannot
 * evict each other mid-handshake, yet short enough that keeping everyone out takes 64 new
 * sessions every 5 s, not 64 once per half hour (docs/adr/0009-evict-the-longest-idle-session.md).
 */
export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxSessions: 64,
  idleMs: 30 * 60 * 1000,
  evictableAfterMs: 5_000,
};

export type Admission<S> = { ok: true; session: S } | { ok: false; retryAfterSeconds: number };

interface Entry<S> {
  session: S;
  lastSeen: number;
  inFlight: number;
  streams: number;
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
   * Opens a session if there is room, evicting (and closing) the session idle longest when the
   * table is full and that one has been idle `evictableAfterMs`; otherwise refuses with the
   * seconds until a session could be evicted. Synchronous, so concurrent admissions cannot
   * overfill the table; `open` runs only when admitted.
   */
  admit(open: () => S): Admission<S> {
    if (this.#sessions.size >= this.#limits.maxSessions) {
      const now = this.#now();
      const oldest = this.#longestIdle();
      const idleFor = oldest ? now - oldest[1].lastSeen : 0;
      if (!oldest || idleFor < this.#limits.evictableAfterMs) {
        // With every session busy, a slot frees at the earliest a full floor after a request ends.
        const waitMs = this.#limits.evictableAfterMs - idleFor;
        return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
      }
      this.#sessions.delete(oldest[0]);
      oldest[1].session.close().catch(() => {});
    }
    const session = open();
    this.#sessions.set(session.id, { session, lastSeen: this.#now(), inFlight: 0, streams: 0 });
    return { ok: true, session };
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

  /** A linear scan: the table holds at most `maxSessions` entries. */
  #longestIdle(): [string, Entry<S>] | undefined {
    let oldest: [string, Entry<S>] | undefined;
    for (const pair of this.#sessions) {
      if (
        pair[1].inFlight === 0 &&
        pair[1].streams === 0 &&
        (!oldest || pair[1].lastSeen < oldest[1].lastSeen)
      )
        oldest = pair;
    }
    return oldest;
  }
}
