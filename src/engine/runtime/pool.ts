import { availableParallelism } from 'node:os';
import {
  DEFAULT_CALL_TIMEOUT_MS,
  MAX_QUEUED_BYTES,
  MAX_QUEUED_CALLS,
  MAX_WORKER_CALLS,
  MAX_WORKER_HEAP_BYTES,
  WORKER_START_TIMEOUT_MS,
} from '../../limits.js';
import { EngineError } from '../errors.js';
import { cancelled, EngineWorker, type Job } from './engine-worker.js';
import { FairQueue } from './fair-queue.js';
import type { EngineLimits, OperationName, Operations } from './operations.js';
import { callerLine, type Holding, type Refusal, WaitingLedger } from './waiting-ledger.js';

export interface PoolOptions {
  /** Workers running engine calls at once; defaults to the number of cores. */
  size?: number;
  /** Wall-clock budget per call; past it the worker is terminated and replaced. */
  timeoutMs?: number;
  /** Calls allowed to wait for a worker; past it a call is refused with a `busy` error. */
  maxQueued?: number;
  /** What the waiting calls' arguments may hold in all (bytes); past it a call is refused as `busy`. */
  maxQueuedBytes?: number;
  /** WebAssembly heap size past which a worker is replaced after its call. */
  maxHeapBytes?: number;
  /** Calls the pool serves between two recycles: each time, its most used worker is replaced. */
  maxCalls?: number;
  /** How long a call may wait for its fresh worker to load libxml2; its own budget starts after. */
  startTimeoutMs?: number;
  /** Bounds the workers apply to their inputs, for tests that must get past one (defaults: limits.ts). */
  engineLimits?: EngineLimits;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Who is asking (a session or connection): waiting calls are served round-robin by client. */
  client?: string;
}

/**
 * The only door from the tools to the engine. libxml2 runs on a small WebAssembly stack that
 * hostile expressions can overflow or hang, so every call runs on a worker thread with a
 * deadline (`EngineWorker`); a worker that times out, traps, crashes or is cancelled ends, and
 * the next call that needs a worker starts a fresh one. The pool keeps the queue, the clients'
 * affinity to the worker holding their documents, and the policy for letting healthy workers go.
 *
 * A worker's WebAssembly heap never shrinks, so workers do not live for ever: one whose heap
 * passed `maxHeapBytes` is let go after its call, and every `maxCalls` calls the pool lets its
 * most used worker go once it is idle (ADR 0012). Either way a fresh worker starts loading
 * libxml2 at once in its place.
 */
export class EnginePool {
  readonly #size: number;
  readonly #waiting: WaitingLedger;
  readonly #maxHeapBytes: number;
  readonly #maxCalls: number;
  readonly #workerOptions: ConstructorParameters<typeof EngineWorker>[0];
  #retired = 0;
  #recycled = 0;
  #coldCalls = 0;
  /** Calls answered since the last recycle was decided. */
  #sinceRecycle = 0;
  /** The worker to let go as soon as it is idle (its share of calls is served). */
  #recycleDue: EngineWorker | null = null;
  readonly #workers: EngineWorker[] = [];
  /** Every thread not yet exited, in service or on its way out: `close` waits for them all. */
  readonly #threads = new Set<EngineWorker>();
  readonly #queue = new FairQueue<Job>();
  /** Soft affinity: the worker that last served calls of a document cache (a session's, or the stateless one). */
  readonly #home = new Map<string, EngineWorker>();
  #nextId = 1;
  #closed = false;

  constructor(options: PoolOptions = {}) {
    this.#size = Math.max(1, options.size ?? availableParallelism());
    this.#waiting = new WaitingLedger({
      maxCalls: options.maxQueued ?? MAX_QUEUED_CALLS,
      maxBytes: options.maxQueuedBytes ?? MAX_QUEUED_BYTES,
    });
    this.#maxHeapBytes = options.maxHeapBytes ?? MAX_WORKER_HEAP_BYTES;
    this.#maxCalls = Math.max(1, options.maxCalls ?? MAX_WORKER_CALLS);
    this.#workerOptions = {
      timeoutMs: options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      startTimeoutMs: options.startTimeoutMs ?? WORKER_START_TIMEOUT_MS,
      engineLimits: options.engineLimits ?? {},
      onAnswered: (worker, heapBytes) => this.#onAnswered(worker, heapBytes),
      onFailed: (worker) => this.#onFailed(worker),
    };
  }

  run<K extends OperationName>(
    op: K,
    args: Operations[K]['args'],
    options: RunOptions = {},
  ): Promise<Operations[K]['result']> {
    if (this.#closed) return Promise.reject(closed());
    if (options.signal?.aborted) return Promise.reject(cancelled());
    const holding = argumentHolding(args);
    const client = options.client ?? '';
    const refusal = this.#waiting.refusal(client, holding);
    if (refusal) return Promise.reject(busy(refusal, client));
    return new Promise((resolve, reject) => {
      const job: Job = {
        id: this.#nextId++,
        client,
        op,
        args,
        transfer: transferables(args),
        holding,
        signal: options.signal,
        worker: null,
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      this.#queue.push(job.client, job);
      this.#waiting.add(job.client, holding);
      // One listener for the call's whole life: waiting, it leaves the queue; running, its
      // worker ends (a no-op once answered). Left on the signal, which is the request's own.
      job.signal?.addEventListener('abort', () => this.#cancel(job), { once: true });
      this.#dispatch();
    });
  }

  /**
   * Terminates every worker; pending calls are rejected. Settles when every thread has exited,
   * those already on their way out included, so a process may exit then without cutting one off
   * while it loads (engine-worker.ts, `#end`).
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.drain()) job.reject(closed());
    this.#waiting.clear();
    this.#home.clear();
    this.#recycleDue = null;
    await Promise.all(this.#workers.splice(0).map((worker) => worker.stop(closed())));
    await Promise.all([...this.#threads].map((worker) => worker.exited));
  }

  /**
   * Starts one worker ahead of the first call, which would otherwise pay its start-up
   * (~200 ms: loading and instantiating libxml2). An idle worker does not keep the process alive.
   */
  warm(): void {
    if (!this.#closed && this.#workers.length === 0) this.#spawn();
  }

  /** Frees what the workers keep for a client whose session ended (its parsed documents). */
  forget(client: string): void {
    this.#home.delete(client);
    for (const worker of this.#workers) worker.forget(client);
  }

  /** Workers replaced because their heap outgrew the bound (for tests and diagnostics). */
  get retiredWorkers(): number {
    return this.#retired;
  }

  /** Workers let go after serving their share of calls. */
  get recycledWorkers(): number {
    return this.#recycled;
  }

  /** Calls sent to a worker that had not finished loading libxml2 (each waited for its start-up). */
  get coldCalls(): number {
    return this.#coldCalls;
  }

  /** What a health check reports: workers in service, those running a call, calls waiting. */
  get stats(): { workers: number; busy: number; queued: number } {
    const busy = this.#workers.filter((worker) => !worker.idle).length;
    return { workers: this.#workers.length, busy, queued: this.#queue.size };
  }

  /** Thread ids of the workers in service (for tests and diagnostics). */
  get threadIds(): number[] {
    return this.#workers.map((worker) => worker.threadId);
  }

  #cancel(job: Job): void {
    if (job.worker) {
      job.worker.cancel(job);
      return;
    }
    if (!this.#queue.remove(job.client, job)) return;
    this.#waiting.remove(job.client, job.holding);
    job.reject(cancelled());
  }

  #dispatch(): void {
    while (this.#queue.size > 0) {
      const next = this.#queue.peek();
      const worker = this.#idleWorkerFor(next && cacheOf(next));
      if (!worker) return;
      const job = this.#queue.shift() as Job;
      this.#waiting.remove(job.client, job.holding);
      // Homes are by cache, not by client: stateless requests (a fresh client id each) share
      // one cache and would otherwise fill the map.
      const cache = cacheOf(job);
      if (cache !== undefined) this.#home.set(cache, worker);
      if (!worker.ready) this.#coldCalls++;
      worker.run(job);
    }
  }

  /** The cache's home when idle (its documents are there), else a loaded idle worker, else any. */
  #idleWorkerFor(cache: string | undefined): EngineWorker | undefined {
    const home = cache === undefined ? undefined : this.#home.get(cache);
    if (home?.idle) return home;
    return (
      this.#workers.find((worker) => worker.idle && worker.ready) ??
      this.#workers.find((worker) => worker.idle) ??
      (this.#workers.length < this.#size ? this.#spawn() : undefined)
    );
  }

  #spawn(): EngineWorker {
    const worker = new EngineWorker(this.#workerOptions);
    this.#workers.push(worker);
    this.#threads.add(worker);
    void worker.exited.then(() => this.#threads.delete(worker));
    return worker;
  }

  #onAnswered(worker: EngineWorker, heapBytes: number | undefined): void {
    if ((heapBytes ?? 0) > this.#maxHeapBytes) {
      this.#retired++;
      this.#letGo(worker);
    } else if (++this.#sinceRecycle >= this.#maxCalls) {
      this.#sinceRecycle = 0;
      this.#recycleDue = mostUsed(this.#workers) ?? null;
    }
    const due = this.#recycleDue;
    if (due?.idle) {
      this.#recycled++;
      this.#letGo(due);
    }
    this.#dispatch();
  }

  /** The worker has already failed its call and ended; the next call that needs one starts a fresh one. */
  #onFailed(worker: EngineWorker): void {
    this.#remove(worker);
    if (!this.#closed) this.#dispatch();
  }

  /** A healthy, idle worker goes; a fresh one starts loading libxml2 in its place at once. */
  #letGo(worker: EngineWorker): void {
    this.#remove(worker);
    void worker.stop(closed());
    if (!this.#closed) this.#spawn();
  }

  /** Takes a worker out of service; the clients whose home it was lose their home. */
  #remove(worker: EngineWorker): void {
    const index = this.#workers.indexOf(worker);
    if (index >= 0) this.#workers.splice(index, 1);
    if (this.#recycleDue === worker) this.#recycleDue = null;
    for (const [client, home] of this.#home) if (home === worker) this.#home.delete(client);
  }
}

function mostUsed(workers: EngineWorker[]): EngineWorker | undefined {
  let busiest: EngineWorker | undefined;
  for (const worker of workers) if (!busiest || worker.served > busiest.served) busiest = worker;
  return busiest;
}

function closed(): Error {
  return new Error('The engine pool is closed.');
}

/** The call may keep or reuse its client's parsed document (see `cacheAs` in operations.ts). */
/** The document cache a call's parse goes to (`cacheAs`), if any. */
function cacheOf(job: Job): string | undefined {
  const { cacheAs } = job.args as { cacheAs?: unknown };
  return typeof cacheAs === 'string' && cacheAs !== '' ? cacheAs : undefined;
}

/** Documents by their bytes, other strings (alone or in an array) by their length: what a waiting call keeps alive. */
/** What a call's arguments hold while it waits: its own bytes, and held documents' shared memory once. */
function argumentHolding(args: unknown): Holding {
  let own = 0;
  const shared: Uint8Array[] = [];
  for (const value of Object.values(args as Record<string, unknown>)) {
    if (value instanceof Uint8Array) {
      if (value.buffer instanceof SharedArrayBuffer) shared.push(value);
      else own += value.byteLength;
    } else if (typeof value === 'string') own += value.length;
    else if (Array.isArray(value)) {
      // A batch's expressions (xml_query's `xpath` as an array).
      for (const item of value) if (typeof item === 'string') own += item.length;
    }
  }
  return { own, shared };
}

function transferables(args: unknown): ArrayBuffer[] {
  const buffers: ArrayBuffer[] = [];
  for (const value of Object.values(args as Record<string, unknown>)) {
    // A held document's bytes are shared memory (src/tools/document-handles.ts): shared, not moved.
    // An empty buffer is cloned, not moved: a detached one (moved away already) looks empty, and
    // Node drops a message whose transfer list holds a detached buffer without a word, where
    // cloning one throws, which the worker reports (engine-worker.ts).
    if (
      value instanceof Uint8Array &&
      value.byteLength > 0 &&
      value.buffer instanceof ArrayBuffer &&
      value.byteOffset === 0 &&
      value.byteLength === value.buffer.byteLength
    ) {
      buffers.push(value.buffer as ArrayBuffer);
    }
  }
  return buffers;
}

function busy(refusal: Refusal, line: string): EngineError {
  const what =
    'calls' in refusal
      ? `${refusal.calls} calls are already waiting for the XML engine`
      : `${Math.round(refusal.bytes / (1024 * 1024))} MiB of documents are already waiting for the XML engine`;
  const whose = !refusal.client
    ? ''
    : line.startsWith(callerLine(''))
      ? ' from your calls (every session of yours counts)'
      : ' from this session';
  const advice = refusal.client ? ' Wait for their answers before sending more.' : ' Retry in a moment.';
  return new EngineError({ code: 'busy', message: `The server is busy: ${what}${whose}.${advice}` });
}
