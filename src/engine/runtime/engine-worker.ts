import { Worker } from 'node:worker_threads';
import { WORKER_JS_HEAP_MB } from '../../limits.js';
import { EngineError } from '../errors.js';
import type { EngineLimits, OperationName } from './operations.js';
import type { Holding } from './waiting-ledger.js';
import type { WorkerForget, WorkerReady, WorkerReply, WorkerRequest } from './worker.js';

/** One engine call on its way to a worker, as the pool hands it over. */
export interface Job {
  id: number;
  client: string;
  op: OperationName;
  args: unknown;
  transfer: ArrayBuffer[];
  /** What its arguments hold while it waits (MAX_QUEUED_BYTES, waiting-ledger.ts). */
  holding: Holding;
  signal: AbortSignal | undefined;
  /** The worker running it, once dispatched: where the pool's one abort listener sends a cancel. */
  worker: EngineWorker | null;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export interface EngineWorkerOptions {
  /** The call's own budget, counted from when libxml2 has loaded in the worker. */
  timeoutMs: number;
  /** How long a call may wait for the worker to load libxml2 before it is given up. */
  startTimeoutMs: number;
  engineLimits: EngineLimits;
  /** The call was answered (a result or an engine error) and the worker can serve on. */
  onAnswered(worker: EngineWorker, heapBytes: number | undefined): void;
  /** The worker failed its call and has ended (crash, trap, deadline, cancel, no start-up). */
  onFailed(worker: EngineWorker): void;
}

/**
 * One worker thread and the call it runs: its deadline, its cancellation, its readiness. Every
 * way a call can go wrong ends here the same way: the call is rejected with the reason, the
 * thread is terminated (its libxml2 state is unknown), and the pool is told, once.
 */
export class EngineWorker {
  readonly #thread: Worker;
  readonly #options: EngineWorkerOptions;
  #job: Job | null = null;
  #deadline: NodeJS.Timeout | null = null;
  #startup: NodeJS.Timeout | null = null;
  #ready = false;
  #ended = false;
  /** Settles once the thread has loaded its modules (ready) or is gone: only then may it be terminated. */
  readonly #started: Promise<void>;
  #onStarted: () => void = () => {};
  /** Settles when the thread has exited, whatever ended it. */
  readonly exited: Promise<void>;
  /** Calls it has answered: the worker that has served the most is the next to be recycled. */
  served = 0;

  constructor(options: EngineWorkerOptions) {
    this.#options = options;
    this.#thread = startThread(options.engineLimits);
    this.#thread.unref();
    this.#started = new Promise((resolve) => {
      this.#onStarted = resolve;
    });
    this.exited = new Promise((resolve) => this.#thread.once('exit', () => resolve()));
    void this.exited.then(this.#onStarted);
    this.#thread.on('message', (message: WorkerReply | WorkerReady) =>
      'ready' in message ? this.#onReady() : this.#onReply(message),
    );
    this.#thread.on('error', (error) => this.#fail(crashed(error)));
    this.#thread.on('exit', this.#onExit);
  }

  readonly #onExit = () => this.#fail(crashed(new Error('the engine worker exited')));

  get idle(): boolean {
    return this.#job === null && !this.#ended;
  }

  /** libxml2 has loaded: a call sent now pays no start-up. */
  get ready(): boolean {
    return this.#ready;
  }

  get threadId(): number {
    return this.#thread.threadId;
  }

  run(job: Job): void {
    this.#job = job;
    // A busy worker keeps the process alive so a reply is never lost at end of input.
    this.#thread.ref();
    // The budget is the call's own: a worker still loading libxml2 starts the clock when ready,
    // and has the start-up budget to get there.
    if (this.#ready) this.#startDeadline();
    else {
      const { startTimeoutMs } = this.#options;
      this.#startup = setTimeout(() => this.#fail(notStarted(startTimeoutMs)), startTimeoutMs);
    }
    job.worker = this;
    const request: WorkerRequest = { id: job.id, op: job.op, args: job.args };
    try {
      this.#thread.postMessage(request, job.transfer);
    } catch (error) {
      this.#refuse(job, error);
    }
  }

  /**
   * The arguments could not be sent (a buffer already handed to another thread, a value that
   * cannot be cloned): the worker never saw the call, so it stays as it was and serves the next
   * one, and the call is refused now instead of waiting out its time budget.
   */
  #refuse(job: Job, error: unknown): void {
    this.#settle();
    this.#clearStartup();
    const why = error instanceof Error ? error.message : String(error);
    job.reject(
      new EngineError({
        code: 'invalid-argument',
        message: `The call's arguments could not be handed to the XML engine (${why}). Send the call again.`,
      }),
    );
    this.#options.onAnswered(this, undefined);
  }

  /** The client cancelled `job`: if it is still this worker's call, the worker ends with it. */
  cancel(job: Job): void {
    if (this.#job === job) this.#fail(cancelled());
  }

  /** Frees what the worker keeps for a client whose session ended (its parsed documents). */
  forget(client: string): void {
    const message: WorkerForget = { forget: client };
    this.#thread.postMessage(message);
  }

  /** Ends the worker for the pool's own reasons (recycled, heap, closing); a running call gets `error`. */
  stop(error: Error): Promise<void> {
    return this.#end(error);
  }

  #onReady(): void {
    this.#ready = true;
    this.#onStarted();
    this.#clearStartup();
    if (this.#job && !this.#deadline) this.#startDeadline();
  }

  #onReply(reply: WorkerReply): void {
    const job = this.#job;
    if (!job || job.id !== reply.id) return;
    if (!reply.ok && reply.poisoned) {
      this.#fail(new EngineError(reply.error));
      return;
    }
    this.#settle();
    this.served++;
    if (reply.ok) job.resolve(reply.result);
    else job.reject(new EngineError(reply.error));
    this.#options.onAnswered(this, reply.heapBytes);
  }

  #startDeadline(): void {
    const { timeoutMs } = this.#options;
    this.#deadline = setTimeout(() => this.#fail(timedOut(timeoutMs, this.#job?.op)), timeoutMs);
  }

  #fail(error: Error): void {
    if (this.#ended) return;
    void this.#end(error);
    this.#options.onFailed(this);
  }

  #end(error: Error): Promise<void> {
    if (this.#ended) return Promise.resolve();
    this.#ended = true;
    const job = this.#job;
    this.#settle();
    this.#clearStartup();
    job?.reject(error);
    this.#thread.off('exit', this.#onExit);
    // Terminating a thread while its modules are still evaluating (libxml2-wasm instantiates with
    // a top-level await) can end the whole process in a V8 fatal error on Node.js 22 and later
    // (issue 36), so a worker still loading is let finish first, within its start-up budget. Its
    // call has already been answered above. Meanwhile the thread holds the process: were nothing
    // else left, Node.js would exit and cut it off all the same.
    this.#thread.ref();
    return startedWithin(this.#started, this.#options.startTimeoutMs)
      .then(() => this.#thread.terminate())
      .then(
        () => {},
        () => {},
      );
  }

  /** The call is over: its deadline goes, and the worker no longer holds the process. */
  #settle(): void {
    if (this.#deadline) clearTimeout(this.#deadline);
    this.#deadline = null;
    this.#job = null;
    this.#thread.unref();
  }

  #clearStartup(): void {
    if (this.#startup) clearTimeout(this.#startup);
    this.#startup = null;
  }
}

/**
 * The worker entry beside this module. Run from source (the tests), that is `worker.ts`: it is
 * loaded through tsx's loader, registered inside the worker, so a test always exercises the
 * engine's current source and never a stale build.
 */
function startThread(engineLimits: EngineLimits): Worker {
  const here = import.meta.url;
  const options = { workerData: engineLimits, resourceLimits: { maxOldGenerationSizeMb: WORKER_JS_HEAP_MB } };
  if (!here.endsWith('.ts')) return new Worker(new URL('./worker.js', here), options);
  const entry = new URL('./worker.ts', here).href;
  const loader = import.meta.resolve('tsx/esm/api');
  // The bundle's fontoxpath has its two patches (scripts/fontoxpath-patches.ts); a worker run
  // from source gets them from module hooks that this module, loaded through tsx, registers.
  const hooks = new URL('../../../scripts/fontoxpath-hooks.ts', here).href;
  const boot =
    `import(${JSON.stringify(loader)}).then(({ register }) => { register(); return import(${JSON.stringify(hooks)}); })` +
    `.then(({ registerFontoxpathPatches }) => { registerFontoxpathPatches(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, ...options });
}

/** `started`, or `ms` later if it has not settled by then. */
function startedWithin(started: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return Promise.race([started, late]).finally(() => clearTimeout(timer));
}

/** What the caller can change to come in under the time budget depends on what ran. */
const SPEED_UP: Record<OperationName, string> = {
  query: 'Narrow the expression (a more specific path, fewer nested `//`) or pass a smaller document.',
  batch:
    'Send fewer or narrower expressions (a more specific path, fewer nested `//`), or a smaller document.',
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

export function cancelled(): EngineError {
  return new EngineError({ code: 'timeout', message: 'The call was cancelled by the client.' });
}

function crashed(error: Error): EngineError {
  if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new EngineError({
      code: 'out-of-memory',
      message: `The call ran out of its memory budget (${WORKER_JS_HEAP_MB} MiB of JavaScript heap), so it was stopped and the engine restarted. An XPath 3.1 expression that builds huge sequences or strings (\`1 to 100000000\`, \`string-join\` of millions of items) cannot be answered: narrow it, or count instead of listing.`,
    });
  }
  return new EngineError({
    code: 'engine-crashed',
    message: `The XML engine failed on this input and was restarted (${error.message}). Simplify the expression or the document and call again.`,
  });
}
