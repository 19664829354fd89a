/** A live session on one of the HTTP transports. */
export interface Session {
  readonly id: string;
  close(): Promise<void>;
}

export interface SessionLimits {
  /**
   * Sessions open at once: a memory bound, never a wall. A full table evicts an idle session at
   * once, so the number decides how many clients keep their session, not who is served.
   */
  maxSessions: number;
  /** A session with no request for this long is closed. */
  idleMs: number;
  /**
   * A session that never called a tool is first in line for eviction once it has had no request
   * for this long: longer than a handshake, so a burst of newcomers evicts finished handshakes,
   * not ones under way.
   */
  evictableAfterMs: number;
  /**
   * The same preference for a session that has made a tool call or holds a GET stream: a model
   * between two calls may think for minutes, and its session (with its parsed documents) should
   * outlast that when others can go instead.
   */
  engagedEvictableAfterMs: number;
  /**
   * With authentication on, sessions one subject keeps at once (docs/adr/0054): its next one
   * evicts its own longest idle session, so one caller cannot fill the table and push the
   * others' sessions out.
   */
  maxSessionsPerCaller?: number;
}

/**
 * 4,096 sessions: an idle session costs ~11 KiB of the main thread's heap beyond what the bounds
 * on held texts and parsed documents already cap for the whole process, so a full table is
 * ~45 MiB. Eviction is at once and never of a session with a request in flight; the two periods
 * only order the idle sessions: bare ones past 5 s, then those that called a tool past 5 minutes,
 * then the rest, longest idle first. An evicted session's texts stay for their handles
 * (docs/adr/0047-evict-at-once-handles-stay.md).
 */
export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxSessions: 4096,
  idleMs: 30 * 60 * 1000,
  evictableAfterMs: 5_000,
  engagedEvictableAfterMs: 5 * 60 * 1000,
};

export type Admission<S> = { ok: true; session: S } | { ok: false; retryAfterSeconds: number };

/**
 * What a newcomer is told to wait when every session has a call in flight: the only refusal left,
 * and one that lasts no longer than a call (its time budget ends it).
 */
const BUSY_RETRY_AFTER_SECONDS = 1;

interface Entry<S> {
  session: S;
  /** The authenticated subject that opened it; undefined with authentication off. */
  owner: string | undefined;
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
   * Opens a session, evicting (and closing) an idle one at once when the table is full; refuses
   * only when every session has a request in flight. Synchronous, so concurrent admissions cannot
   * overfill the table; `open` runs only when admitted.
   */
  admit(open: () => S, owner?: string): Admission<S> {
    const perCaller = this.#limits.maxSessionsPerCaller;
    if (owner !== undefined && perCaller !== undefined && this.#countOf(owner) >= perCaller) {
      if (!this.#evict(owner)) return { ok: false, retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
    }
    if (this.#sessions.size >= this.#limits.maxSessions) {
      if (!this.#evict()) return { ok: false, retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
    }
    const session = open();
    this.#sessions.set(session.id, {
      session,
      owner,
      lastSeen: this.#now(),
      inFlight: 0,
      streams: 0,
      engaged: false,
    });
    return { ok: true, session };
  }

  /** The session made a tool call: from now on it is evicted after bare sessions, for the longer period. */
  engage(id: string): void {
    const entry = this.#sessions.get(id);
    if (entry) entry.engaged = true;
  }

  /**
   * A request of the session starts: it is in flight until `end`. Undefined when unknown. A
   * `stream` (the server→client GET stream) is not a request in flight: it puts its session with
   * those that called a tool in the eviction order and keeps it from nothing else, not even the
   * idle reaper, or a few held streams would keep their sessions, and the table, for ever.
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

  /** The subject that opened the session (undefined with authentication off, or when unknown). */
  ownerOf(id: string): string | undefined {
    return this.#sessions.get(id)?.owner;
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
   * The idle session to evict: a linear scan (the table holds at most `maxSessions` entries). A
   * running call protects its session; nothing else does. Among the idle, a bare session past
   * its period goes first, then one that called a tool (or holds a GET stream) past its longer
   * period, then any, each group longest idle first: a session in the middle of its handshake is
   * the most recently used, so it goes last (ADR 0047).
   */
  #evictable(now: number, owner?: string): [string, Entry<S>] | undefined {
    const { evictableAfterMs, engagedEvictableAfterMs } = this.#limits;
    const best: Array<[string, Entry<S>] | undefined> = [undefined, undefined, undefined];
    for (const pair of this.#sessions) {
      const entry = pair[1];
      if (entry.inFlight > 0 || (owner !== undefined && entry.owner !== owner)) continue;
      const kept = entry.engaged || entry.streams > 0;
      const idleFor = now - entry.lastSeen;
      const rank = kept ? (idleFor >= engagedEvictableAfterMs ? 1 : 2) : idleFor >= evictableAfterMs ? 0 : 2;
      const current = best[rank];
      if (!current || entry.lastSeen < current[1].lastSeen) best[rank] = pair;
    }
    return best[0] ?? best[1] ?? best[2];
  }

  /** Evicts (and closes) the first idle session in the order above, among `owner`'s when given. */
  #evict(owner?: string): boolean {
    const evict = this.#evictable(this.#now(), owner);
    if (!evict) return false;
    this.#sessions.delete(evict[0]);
    evict[1].session.close().catch(() => {});
    return true;
  }

  /** A linear scan, as eviction's: admissions are rare beside calls. */
  #countOf(owner: string): number {
    let count = 0;
    for (const entry of this.#sessions.values()) if (entry.owner === owner) count++;
    return count;
  }
}
