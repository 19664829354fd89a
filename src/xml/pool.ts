import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { EngineError } from './errors.js';
import { FairQueue } from './fair-queue.js';
import { DEFAULT_CALL_TIMEOUT_MS, MAX_QUEUED_CALLS, MAX_WORKER_HEAP_BYTES } from './limits.js';
import type { OperationName, Operations } from './operations.js';
import type { WorkerForget, WorkerReply, WorkerRequest } from './worker.js';

export interface PoolOptions {
  /** Workers running engine calls at once; defaults to the number of cores. */
  size?: number;
  /** Wall-clock budget per call; past it the worker is terminated and replaced. */
  timeoutMs?: number;
  /** Calls allowed to wait for a worker; past it a call is refused with a `busy` error. */
  maxQueued?: number;
  /** WebAssembly heap size past which a worker is replaced after its call. */
  maxHeapBytes?: number;
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
  signal: AbortSignal | undefined;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  onAbort: (() => void) | null;
}

/**
 * The only door from the tools to the engine. libxml2 runs on a small WebAssembly stack that
 * hostile expressions can overflow or hang, so every call runs on a worker thread with a
 * deadline; a worker that times out, traps or is cancelled is terminated and replaced, and
 * the server keeps serving.
 */
export class EnginePool {
  readonly #size: number;
  readonly #timeoutMs: number;
  readonly #maxQueued: number;
  readonly #maxHeapBytes: number;
  #retired = 0;
  readonly #slots: Slot[] = [];
  readonly #queue = new FairQueue<Job>();
  readonly #home = new Map<string, Slot>();
  #nextId = 1;
  #closed = false;

  constructor(options: PoolOptions = {}) {
    this.#size = Math.max(1, options.size ?? availableParallelism());
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.#maxQueued = options.maxQueued ?? MAX_QUEUED_CALLS;
    this.#maxHeapBytes = options.maxHeapBytes ?? MAX_WORKER_HEAP_BYTES;
  }

  run<K extends OperationName>(
    op: K,
    args: Operations[K]['args'],
    options: RunOptions = {},
  ): Promise<Operations[K]['result']> {
    if (this.#closed) return Promise.reject(new Error('The engine pool is closed.'));
    if (options.signal?.aborted) return Promise.reject(cancelled());
    if (this.#queue.size >= this.#maxQueued) return Promise.reject(busy(this.#maxQueued));
    return new Promise((resolve, reject) => {
      const job: Job = {
        id: this.#nextId++,
        client: options.client ?? '',
        op,
        args,
        transfer: transferables(args),
        signal: options.signal,
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      this.#queue.push(job.client, job);
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
    await Promise.all(
      this.#slots.splice(0).map((slot) => {
        if (slot.job) this.#finish(slot, () => slot.job?.reject(new Error('The engine pool is closed.')));
        return slot.worker.terminate();
      }),
    );
  }

  #dequeue(job: Job, error: Error): void {
    if (this.#queue.remove(job.client, job)) job.reject(error);
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
      // A client goes back to the worker that served it last, where its documents are kept.
      const home = this.#home.get(job.client);
      const slot =
        (home && home.job === null && this.#slots.includes(home) ? home : undefined) ??
        this.#slots.find((candidate) => candidate.job === null) ??
        this.#spawn();
      if (job.client !== '') this.#home.set(job.client, slot);
      this.#start(slot, job);
    }
  }

  #spawn(): Slot {
    const worker = new Worker(workerUrl());
    const slot: Slot = { worker, job: null, timer: null, onAbort: null };
    worker.unref();
    worker.on('message', (reply: WorkerReply) => this.#onReply(slot, reply));
    worker.on('error', (error) => this.#replace(slot, crashed(error)));
    worker.on('exit', () => this.#replace(slot, crashed(new Error('the engine worker exited'))));
    this.#slots.push(slot);
    return slot;
  }

  #start(slot: Slot, job: Job): void {
    slot.job = job;
    // A busy worker keeps the process alive so a reply is never lost at end of input.
    slot.worker.ref();
    slot.timer = setTimeout(() => this.#replace(slot, timedOut(this.#timeoutMs)), this.#timeoutMs);
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
    if ((reply.heapBytes ?? 0) > this.#maxHeapBytes) this.#retire(slot);
    this.#dispatch();
  }

  /** Lets an idle worker go (its heap grew too far and never shrinks); the next call starts a fresh one. */
  #retire(slot: Slot): void {
    const index = this.#slots.indexOf(slot);
    if (index < 0 || slot.job) return;
    this.#slots.splice(index, 1);
    this.#retired++;
    slot.worker.removeAllListeners('exit');
    slot.worker.terminate().catch(() => {});
  }

  /** Workers replaced because their heap outgrew the bound (for tests and diagnostics). */
  get retiredWorkers(): number {
    return this.#retired;
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
    const index = this.#slots.indexOf(slot);
    if (index < 0) return;
    this.#slots.splice(index, 1);
    const job = slot.job;
    this.#finish(slot, () => job?.reject(error));
    slot.worker.removeAllListeners('exit');
    slot.worker.terminate().catch(() => {});
    if (!this.#closed) this.#dispatch();
  }
}

function transferables(args: unknown): ArrayBuffer[] {
  const buffers: ArrayBuffer[] = [];
  for (const value of Object.values(args as Record<string, unknown>)) {
    if (
      value instanceof Uint8Array &&
      value.byteOffset === 0 &&
      value.byteLength === value.buffer.byteLength
    ) {
      buffers.push(value.buffer as ArrayBuffer);
    }
  }
  return buffers;
}

/** The compiled worker entry; tests that run this file from source still start the built worker. */
function workerUrl(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts') ? new URL('../../dist/xml/worker.js', here) : new URL('./worker.js', here);
}

function timedOut(ms: number): EngineError {
  return new EngineError({
    code: 'timeout',
    message: `The call ran past its time budget of ${ms} ms and was stopped. Narrow the expression (a more specific path, fewer nested \`//\`) or pass a smaller document.`,
  });
}

function busy(queued: number): EngineError {
  return new EngineError({
    code: 'busy',
    message: `The server is busy: ${queued} calls are already waiting for the XML engine. Retry in a moment.`,
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
