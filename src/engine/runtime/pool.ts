import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  DEFAULT_CALL_TIMEOUT_MS,
  MAX_QUEUED_BYTES,
  MAX_QUEUED_CALLS,
  MAX_WORKER_CALLS,
  MAX_WORKER_HEAP_BYTES,
  WORKER_START_TIMEOUT_MS,
} from '../../limits.js';
import { EngineError } from '../errors.js';
import { FairQueue } from './fair-queue.js';
import type { EngineLimits, OperationName, Operations } from './operations.js';
import type { WorkerForget, WorkerReady, WorkerReply, WorkerRequest } from './worker.js';

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
  /** How long a successor may take to load libxml2; past it, it is dropped and the old worker serves on. */
  warmupTimeoutMs?: number;
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

interface Job {
  id: number;
  client: string;
  op: OperationName;
  args: unknown;
  transfer: ArrayBuffer[];
  /** What its arguments hold while it waits (MAX_QUEUED_BYTES). */
  bytes: number;
  signal: AbortSignal | undefined;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  onAbort: (() => void) | null;
  /** libxml2 has loaded in the worker: a call sent to it now pays no start-up. */
  ready: boolean;
  /** Calls it has answered: the worker that has served the most is the next to be recycled. */
  served: number;
  /** The fresh worker warming up to take this one's place (recycling). */
  successor: Slot | null;
  /** While this worker warms up as a successor: the deadline for it to load libxml2. */
  warmup: NodeJS.Timeout | null;
}

/**
 * The only door from the tools to the engine. libxml2 runs on a small WebAssembly stack that
 * hostile expressions can overflow or hang, so every call runs on a worker thread with a
 * deadline; a worker that times out, traps or is cancelled is terminated and replaced, and
 * the server keeps serving.
 *
 * A worker's WebAssembly heap never shrinks, so workers do not live for ever: one whose heap
 * passed `maxHeapBytes` is let go after its call, and every `maxCalls` calls the pool recycles
 * the worker that has served the most: a fresh worker is started and loads libxml2 while the
 * old one keeps serving, then takes its place (and its clients) once the old one is idle. A
 * rolling restart: under an even load the workers are replaced in turn and their ages stay
 * spread, so the heaps they hold add up to about the same total all the time; under an uneven
 * one the busy worker goes first and an idle one keeps its clients' cached documents.
 */
export class EnginePool {
  readonly #size: number;
  readonly #timeoutMs: number;
  readonly #maxQueued: number;
  readonly #maxQueuedBytes: number;
  #queuedBytes = 0;
  readonly #maxHeapBytes: number;
  readonly #maxCalls: number;
  readonly #warmupTimeoutMs: number;
  readonly #startTimeoutMs: number;
  readonly #engineLimits: EngineLimits;
  #retired = 0;
  #recycled = 0;
  #coldCalls = 0;
  /** Calls answered since the last recycle began. */
  #sinceRecycle = 0;
  readonly #slots: Slot[] = [];
  /** The slot whose successor is warming up; at most one at a time. */
  #recycling: Slot | null = null;
  readonly #queue = new FairQueue<Job>();
  /** Soft affinity: the worker that last served a client whose documents are cached. */
  readonly #home = new Map<string, Slot>();
  #nextId = 1;
  #closed = false;

  constructor(options: PoolOptions = {}) {
    this.#size = Math.max(1, options.size ?? availableParallelism());
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.#maxQueued = options.maxQueued ?? MAX_QUEUED_CALLS;
    this.#maxQueuedBytes = options.maxQueuedBytes ?? MAX_QUEUED_BYTES;
    this.#maxHeapBytes = options.maxHeapBytes ?? MAX_WORKER_HEAP_BYTES;
    this.#maxCalls = Math.max(1, options.maxCalls ?? MAX_WORKER_CALLS);
    this.#warmupTimeoutMs = options.warmupTimeoutMs ?? this.#timeoutMs;
    this.#startTimeoutMs = options.startTimeoutMs ?? WORKER_START_TIMEOUT_MS;
    this.#engineLimits = options.engineLimits ?? {};
  }

  run<K extends OperationName>(
    op: K,
    args: Operations[K]['args'],
    options: RunOptions = {},
  ): Promise<Operations[K]['result']> {
    if (this.#closed) return Promise.reject(new Error('The engine pool is closed.'));
    if (options.signal?.aborted) return Promise.reject(cancelled());
    if (this.#queue.size >= this.#maxQueued) return Promise.reject(busy(this.#maxQueued));
    const bytes = argumentBytes(args);
    // A call alone larger than the bound still runs when nothing waits: it is within the
    // argument limits, and refusing it would refuse it for good.
    if (this.#queue.size > 0 && this.#queuedBytes + bytes > this.#maxQueuedBytes) {
      return Promise.reject(busyWithBytes(this.#queuedBytes));
    }
    return new Promise((resolve, reject) => {
      const job: Job = {
        id: this.#nextId++,
        client: options.client ?? '',
        op,
        args,
        transfer: transferables(args),
        bytes,
        signal: options.signal,
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      this.#queue.push(job.client, job);
      this.#queuedBytes += bytes;
      if (job.signal) {
        job.signal.addEventListener('abort', () => this.#dequeue(job, cancelled()), { once: true });
      }
      this.#dispatch();
    });
  }

  /** Terminates every worker; pending calls are rejected. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.drain()) job.reject(new Error('The engine pool is closed.'));
    this.#queuedBytes = 0;
    const successor = this.#recycling?.successor;
    if (successor) endWarmup(successor);
    this.#recycling = null;
    this.#home.clear();
    await Promise.all([
      ...this.#slots.splice(0).map((slot) => {
        const job = slot.job;
        if (job) this.#finish(slot, () => job.reject(new Error('The engine pool is closed.')));
        return slot.worker.terminate();
      }),
      ...(successor ? [successor.worker.terminate()] : []),
    ]);
  }

  #dequeue(job: Job, error: Error): void {
    if (!this.#queue.remove(job.client, job)) return;
    this.#queuedBytes -= job.bytes;
    job.reject(error);
  }

  /**
   * Starts one worker ahead of the first call, which would otherwise pay its start-up
   * (~200 ms: loading and instantiating libxml2). An idle worker does not keep the process alive.
   */
  warm(): void {
    if (!this.#closed && this.#slots.length === 0) this.#spawn();
  }

  /** Frees what the workers keep for a client whose session ended (its parsed documents). */
  forget(client: string): void {
    this.#home.delete(client);
    const message: WorkerForget = { forget: client };
    for (const slot of this.#slots) slot.worker.postMessage(message);
  }

  #dispatch(): void {
    while (this.#queue.size > 0) {
      if (!this.#slots.some((slot) => slot.job === null) && this.#slots.length >= this.#size) return;
      const job = this.#queue.shift() as Job;
      this.#queuedBytes -= job.bytes;
      // A client goes back to the worker that served it last, where its documents are kept.
      const home = this.#home.get(job.client);
      const slot =
        (home && home.job === null && this.#slots.includes(home) ? home : undefined) ??
        this.#slots.find((candidate) => candidate.job === null) ??
        this.#spawn();
      // Only a client whose documents are cached needs a home; stateless requests (a fresh
      // client id each) would otherwise fill the map.
      if (job.client !== '' && caches(job)) this.#home.set(job.client, slot);
      this.#start(slot, job);
    }
  }

  /** A new worker in service; it loads libxml2 while its first call waits in its port. */
  #spawn(): Slot {
    const slot = this.#create();
    this.#slots.push(slot);
    return slot;
  }

  #create(): Slot {
    const worker = startWorker(this.#engineLimits);
    const slot: Slot = {
      worker,
      job: null,
      timer: null,
      warmup: null,
      onAbort: null,
      ready: false,
      served: 0,
      successor: null,
    };
    worker.unref();
    worker.on('message', (message: WorkerReply | WorkerReady) =>
      'ready' in message ? this.#onReady(slot) : this.#onReply(slot, message),
    );
    worker.on('error', (error) => this.#replace(slot, crashed(error)));
    worker.on('exit', () => this.#replace(slot, crashed(new Error('the engine worker exited'))));
    return slot;
  }

  #start(slot: Slot, job: Job): void {
    if (!slot.ready) this.#coldCalls++;
    slot.job = job;
    // A busy worker keeps the process alive so a reply is never lost at end of input.
    slot.worker.ref();
    // The budget is the call's own: a worker still loading libxml2 starts the clock when ready,
    // and has the start-up budget to get there.
    if (slot.ready) this.#startDeadline(slot);
    else if (!slot.warmup) {
      slot.warmup = setTimeout(
        () => this.#replace(slot, notStarted(this.#startTimeoutMs)),
        this.#startTimeoutMs,
      );
      slot.warmup.unref();
    }
    if (job.signal) {
      slot.onAbort = () => this.#replace(slot, cancelled());
      job.signal.addEventListener('abort', slot.onAbort, { once: true });
    }
    const request: WorkerRequest = { id: job.id, op: job.op, args: job.args };
    slot.worker.postMessage(request, job.transfer);
  }

  #onReply(slot: Slot, reply: WorkerReply): void {
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    if (!reply.ok && reply.poisoned) {
      this.#replace(slot, new EngineError(reply.error));
      return;
    }
    this.#finish(slot, () =>
      reply.ok ? job.resolve(reply.result) : job.reject(new EngineError(reply.error)),
    );
    if ((reply.heapBytes ?? 0) > this.#maxHeapBytes) {
      this.#retire(slot);
    } else if (slot.successor?.ready) {
      this.#handOver(slot);
    }
    slot.served++;
    if (++this.#sinceRecycle >= this.#maxCalls) this.#recycleMostUsed();
    this.#dispatch();
  }

  #startDeadline(slot: Slot): void {
    slot.timer = setTimeout(
      () => this.#replace(slot, timedOut(this.#timeoutMs, slot.job?.op)),
      this.#timeoutMs,
    );
  }

  #onReady(slot: Slot): void {
    slot.ready = true;
    endWarmup(slot);
    if (slot.job && !slot.timer) this.#startDeadline(slot);
    const old = this.#recycling;
    if (old?.successor !== slot) return;
    // The old worker hands over now if it is idle, else after its current call (#onReply).
    if (old.job === null) {
      this.#handOver(old);
      this.#dispatch();
    }
  }

  /**
   * Starts a fresh worker to take the most used one's place once libxml2 has loaded in it;
   * meanwhile the old one keeps serving. One recycle at a time: while another is under way,
   * the pool tries again after its next call.
   */
  #recycleMostUsed(): void {
    if (this.#closed || this.#recycling !== null) return;
    let busiest: Slot | undefined;
    for (const slot of this.#slots) if (!busiest || slot.served > busiest.served) busiest = slot;
    if (!busiest) return;
    this.#sinceRecycle = 0;
    this.#recycling = busiest;
    const successor = this.#create();
    busiest.successor = successor;
    // A successor that never loads must not hold up recycling for good.
    successor.warmup = setTimeout(
      () => this.#replace(successor, timedOut(this.#warmupTimeoutMs)),
      this.#warmupTimeoutMs,
    );
    successor.warmup.unref();
  }

  /** The idle worker leaves; its warmed successor takes its place and its clients. */
  #handOver(slot: Slot): void {
    if (this.#remove(slot)) this.#recycled++;
  }

  /** Lets an idle worker go (its heap grew too far and never shrinks); the next call starts a fresh one. */
  #retire(slot: Slot): void {
    if (slot.job) return;
    if (this.#remove(slot)) this.#retired++;
  }

  /**
   * Takes a worker out of service and terminates it. A successor warming up for it takes its
   * place, and the clients whose home it was move there; without one they lose their home.
   */
  #remove(slot: Slot): boolean {
    const index = this.#slots.indexOf(slot);
    if (index < 0) return false;
    const successor = slot.successor;
    slot.successor = null;
    if (this.#recycling === slot) this.#recycling = null;
    if (successor) {
      // Taking over before it loaded, it is a worker in service now: its first call waits for
      // the load under that call's own deadline, not the warm-up's.
      endWarmup(successor);
      this.#slots.splice(index, 1, successor);
    } else {
      this.#slots.splice(index, 1);
    }
    for (const [client, home] of this.#home) {
      if (home !== slot) continue;
      if (successor) this.#home.set(client, successor);
      else this.#home.delete(client);
    }
    // A call cancelled while this worker was loading leaves its start-up timer behind.
    endWarmup(slot);
    slot.worker.removeAllListeners('exit');
    slot.worker.terminate().catch(() => {});
    return true;
  }

  /** Workers replaced because their heap outgrew the bound (for tests and diagnostics). */
  get retiredWorkers(): number {
    return this.#retired;
  }

  /** Workers replaced by a warmed successor after serving their share of calls. */
  get recycledWorkers(): number {
    return this.#recycled;
  }

  /** Calls sent to a worker that had not finished loading libxml2 (each waited for its start-up). */
  get coldCalls(): number {
    return this.#coldCalls;
  }

  /** Thread ids of the workers in service, in slot order (for tests and diagnostics). */
  get threadIds(): number[] {
    return this.#slots.map((slot) => slot.worker.threadId);
  }

  #finish(slot: Slot, settle: () => void): void {
    if (slot.timer) clearTimeout(slot.timer);
    if (slot.onAbort && slot.job?.signal) slot.job.signal.removeEventListener('abort', slot.onAbort);
    slot.timer = null;
    slot.onAbort = null;
    slot.job = null;
    slot.worker.unref();
    settle();
  }

  /** Ends the slot's worker (its state is unknown), fails its job, and lets a fresh one take over. */
  #replace(slot: Slot, error: Error): void {
    if (this.#recycling?.successor === slot) {
      // The successor failed while warming up: the old worker serves on and retries later.
      endWarmup(slot);
      this.#recycling.successor = null;
      this.#recycling = null;
      slot.worker.removeAllListeners('exit');
      slot.worker.terminate().catch(() => {});
      return;
    }
    if (!this.#slots.includes(slot)) return;
    const job = slot.job;
    this.#finish(slot, () => job?.reject(error));
    this.#remove(slot);
    if (!this.#closed) this.#dispatch();
  }
}

function endWarmup(slot: Slot): void {
  if (slot.warmup) clearTimeout(slot.warmup);
  slot.warmup = null;
}

/** The call may keep or reuse its client's parsed document (see `cacheAs` in operations.ts). */
function caches(job: Job): boolean {
  return typeof (job.args as { cacheAs?: unknown }).cacheAs === 'string';
}

/** Documents by their bytes, other strings by their length: what a waiting call keeps alive. */
function argumentBytes(args: unknown): number {
  let bytes = 0;
  for (const value of Object.values(args as Record<string, unknown>)) {
    if (value instanceof Uint8Array) bytes += value.byteLength;
    else if (typeof value === 'string') bytes += value.length;
  }
  return bytes;
}

function transferables(args: unknown): ArrayBuffer[] {
  const buffers: ArrayBuffer[] = [];
  for (const value of Object.values(args as Record<string, unknown>)) {
    // A held document's bytes are shared memory (src/tools/document-handles.ts): shared, not moved.
    if (
      value instanceof Uint8Array &&
      value.buffer instanceof ArrayBuffer &&
      value.byteOffset === 0 &&
      value.byteLength === value.buffer.byteLength
    ) {
      buffers.push(value.buffer as ArrayBuffer);
    }
  }
  return buffers;
}

/**
 * The worker entry beside this module. Run from source (the tests), that is `worker.ts`: it is
 * loaded through tsx's loader, registered inside the worker, so a test always exercises the
 * engine's current source and never a stale build.
 */
function startWorker(engineLimits: EngineLimits): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./worker.js', here), { workerData: engineLimits });
  const entry = new URL('./worker.ts', here).href;
  const loader = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(loader)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, workerData: engineLimits });
}

/** What the caller can change to come in under the time budget depends on what ran. */
const SPEED_UP: Record<OperationName, string> = {
  query: 'Narrow the expression (a more specific path, fewer nested `//`) or pass a smaller document.',
  validate: 'Validate an extract of the document (e.g. a few of its records) or a simpler schema.',
  inspect: 'Pass a smaller document or an extract of it.',
  check: 'Pass a smaller document or an extract of it.',
  format: 'Pass a smaller document or an extract of it.',
};

function timedOut(ms: number, op?: OperationName): EngineError {
  const advice = op ? SPEED_UP[op] : 'Call again.';
  return new EngineError({
    code: 'timeout',
    message: `The call ran past its time budget of ${ms} ms and was stopped. ${advice}`,
  });
}

function notStarted(ms: number): EngineError {
  return new EngineError({
    code: 'engine-crashed',
    message: `The XML engine did not start within ${ms} ms, so the call was not run. Retry in a moment.`,
  });
}

function busy(queued: number): EngineError {
  return new EngineError({
    code: 'busy',
    message: `The server is busy: ${queued} calls are already waiting for the XML engine. Retry in a moment.`,
  });
}

function busyWithBytes(queuedBytes: number): EngineError {
  const mib = Math.round(queuedBytes / (1024 * 1024));
  return new EngineError({
    code: 'busy',
    message: `The server is busy: ${mib} MiB of documents are already waiting for the XML engine. Retry in a moment.`,
  });
}

function cancelled(): EngineError {
  return new EngineError({ code: 'timeout', message: 'The call was cancelled by the client.' });
}

function crashed(error: Error): EngineError {
  return new EngineError({
    code: 'engine-crashed',
    message: `The XML engine failed on this input and was restarted (${error.message}). Simplify the expression or the document and call again.`,
  });
}
