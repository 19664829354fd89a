/** A live session on one of the HTTP transports. */
export interface Session {
  close(): Promise<void>;
}

export interface SessionLimits {
  maxSessions: number;
  idleMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { maxSessions: 64, idleMs: 30 * 60 * 1000 };

/**
 * The sessions of one HTTP transport: bounded in number, and reaped when idle, since the SDK
 * removes a session only on DELETE or a closed stream (ENGINE-NOTES.md).
 */
export class SessionRegistry<S extends Session> {
  readonly #sessions = new Map<string, { session: S; lastSeen: number }>();
  readonly #limits: SessionLimits;
  readonly #reaper: NodeJS.Timeout;

  constructor(limits: SessionLimits = DEFAULT_SESSION_LIMITS) {
    this.#limits = limits;
    this.#reaper = setInterval(
      () => void this.reapIdle(),
      Math.max(1000, Math.min(limits.idleMs / 2, 60_000)),
    );
    this.#reaper.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  get full(): boolean {
    return this.#sessions.size >= this.#limits.maxSessions;
  }

  add(id: string, session: S): void {
    this.#sessions.set(id, { session, lastSeen: Date.now() });
  }

  /** The session, marked as used now; undefined when unknown (expired, deleted, never existed). */
  touch(id: string): S | undefined {
    const entry = this.#sessions.get(id);
    if (entry) entry.lastSeen = Date.now();
    return entry?.session;
  }

  remove(id: string): void {
    this.#sessions.delete(id);
  }

  async reapIdle(now = Date.now()): Promise<number> {
    const idle = [...this.#sessions].filter(([, entry]) => now - entry.lastSeen > this.#limits.idleMs);
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
}
