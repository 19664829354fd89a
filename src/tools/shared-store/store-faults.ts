/*
 * Every failed store command, told and counted (docs/adr/0052): an operator sees a store fault
 * in the log at once, with the node that failed, and in /healthz as counts. Logged at most once
 * per kind and node in a window, with how many were left unsaid, so a store that fails every
 * call cannot flood stderr.
 */

/** One log line per kind and node in this long; the first is told at once. */
const LOG_WINDOW_MS = 10_000;

export type FaultKind = 'timeout' | 'redirect' | 'refused' | 'unreachable' | 'failover' | 'migration';

/** The name of each kind's count in /healthz. */
const COUNTED = {
  timeout: 'timeouts',
  redirect: 'redirects',
  refused: 'refused',
  unreachable: 'unreachable',
  failover: 'failovers',
  migration: 'migrations',
} as const satisfies Record<FaultKind, string>;

/** What /healthz shows of the faults: a count per kind since the process started. */
export type FaultCounts = Record<(typeof COUNTED)[FaultKind], number>;

const WHAT: Record<FaultKind, string> = {
  timeout: 'a command timed out',
  redirect: 'a command was redirected and not followed',
  refused: 'the store refused a command',
  unreachable: 'a command could not be sent',
  failover: 'a failover',
  migration: 'slots moved',
};

/** The kind of a failed command, from what ioredis rejects it with. */
export function faultKind(error: unknown): FaultKind {
  const message = error instanceof Error ? error.message : String(error);
  // A cluster's retries ran out (a node gone, a slot moving): the last failure says which.
  const last = /^Too many Cluster redirections\. Last error: (\w*Error): (.*)$/s.exec(message);
  if (last) return last[1] === 'ReplyError' ? replyKind(last[2] ?? '') : 'unreachable';
  if (message === 'Command timed out') return 'timeout';
  // A reply from the server: it was reached, and redirected the command or refused it.
  if ((error as { name?: string } | undefined)?.name === 'ReplyError') return replyKind(message);
  return 'unreachable';
}

/** MOVED and ASK name another node; anything else (OOM, READONLY, NOPERM, CLUSTERDOWN, ...) is a refusal. */
const replyKind = (message: string): FaultKind => (/^(MOVED|ASK) /.test(message) ? 'redirect' : 'refused');

export class StoreFaults {
  readonly #log: (line: string) => void;
  readonly #shown: string;
  readonly #counts: FaultCounts = {
    timeouts: 0,
    redirects: 0,
    refused: 0,
    unreachable: 0,
    failovers: 0,
    migrations: 0,
  };
  /** Per kind and node: when it was last told, and how many since went untold. */
  readonly #told = new Map<string, { at: number; untold: number }>();

  constructor(shown: string, log: (line: string) => void) {
    this.#shown = shown;
    this.#log = log;
  }

  get counts(): Readonly<FaultCounts> {
    return this.#counts;
  }

  /** A fault at `node` (host:port); `detail` is the client's or the server's own words. */
  note(kind: FaultKind, node: string, detail: string): void {
    this.#counts[COUNTED[kind]]++;
    const key = `${kind} ${node}`;
    const now = Date.now();
    const told = this.#told.get(key);
    if (told && now - told.at < LOG_WINDOW_MS) {
      told.untold++;
      return;
    }
    const more = told && told.untold > 0 ? ` (and ${told.untold} more since the last line)` : '';
    this.#told.set(key, { at: now, untold: 0 });
    this.#log(`shared store ${this.#shown}: ${WHAT[kind]} at ${node}: ${detail}${more}`);
  }
}
