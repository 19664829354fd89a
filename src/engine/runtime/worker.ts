import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { WORKER_HEAP_CEILING_BYTES } from '../../limits.js';
import { EngineError, type EngineErrorData, isEngineTrap } from '../errors.js';
import { captureWasmMemory, refusedHeapGrowths, wasmHeapBytes } from '../libxml2/memory.js';
import { armStackGuard } from '../libxml2/stack-guard.js';
import type { EngineLimits, OperationName } from './operations.js';

const limits = (workerData ?? {}) as EngineLimits;
const heapCeilingBytes = limits.heapCeilingBytes ?? WORKER_HEAP_CEILING_BYTES;
// Before libxml2-wasm loads (it instantiates on import), so its memory can be reached and bounded.
captureWasmMemory(heapCeilingBytes);
// libxml2 also prints its diagnostics (`XPath error : …` with the offending input) through the
// console: they would copy hostile input into the server's log, and anything on console.log
// would reach stdout, which carries protocol messages. Every failure already comes back as data.
console.error = () => {};
console.log = () => {};
console.warn = () => {};

/** One engine call on this worker; the pool sends one at a time. */
export interface WorkerRequest {
  id: number;
  op: OperationName;
  args: unknown;
}

/** Sent to every worker when a client's session ends; no reply. */
export interface WorkerForget {
  forget: string;
}

/** Sent once, when libxml2 has loaded: from then on a call on this worker pays no start-up. */
export interface WorkerReady {
  ready: true;
}

/** `heapBytes`: the WebAssembly heap after the call, when known; it never shrinks. */
export type WorkerReply = { id: number; heapBytes?: number | undefined } & (
  | { ok: true; result: unknown }
  /** `poisoned`: libxml2 may be corrupt after this failure, so the pool must replace the worker. */
  | { ok: false; error: EngineErrorData; poisoned: boolean }
);

const port = parentPort;
if (!port) throw new Error('worker.ts runs only as a worker thread');

// Not a top-level await: a thread terminated while a module of it is still evaluating
// asynchronously (this entry, or libxml2-wasm, which instantiates on import) can bring the whole
// process down with a V8 fatal error on Node.js 22 and later (issue 36). The pool terminates a
// worker only once it has said it is ready, and this entry says so once every module has finished.
void import('./operations.js').then((engine) => serve(port, engine));

function serve(port: MessagePort, engine: typeof import('./operations.js')): void {
  const { operations, forgetClient, configureLimits } = engine;
  configureLimits(limits);
  // libxml2 has loaded and no call is running: the stack is at rest.
  const stackGuard = armStackGuard();

  port.on('message', (request: WorkerRequest | WorkerForget) => {
    if ('forget' in request) {
      forgetClient(request.forget);
      return;
    }
    let reply: WorkerReply;
    const refusedBefore = refusedHeapGrowths();
    try {
      const run = operations[request.op] as (args: unknown) => unknown;
      reply = { id: request.id, ok: true, result: run(request.args), heapBytes: wasmHeapBytes() };
    } catch (error) {
      reply = { id: request.id, ok: false, ...describeFailure(error), heapBytes: wasmHeapBytes() };
    }
    // Checked after every call, whatever it answered: an overflow that did not trap looks like
    // success (a schema chain answered `Valid`), and its answer cannot be trusted either.
    const breach = stackGuard?.breach();
    if (breach !== undefined) reply = { id: request.id, ok: false, ...corrupted(breach) };
    // Whatever libxml2 answered after an allocation failed ("syntax error", a partial result), the
    // call ran out of memory: it says so, and the worker, its heap now at the ceiling, is replaced.
    else if (refusedHeapGrowths() > refusedBefore)
      reply = { id: request.id, ok: false, ...outOfMemory(request.op), heapBytes: wasmHeapBytes() };
    port.postMessage(reply, reply.ok ? ownBuffers(reply.result) : []);
  });

  port.postMessage({ ready: true } satisfies WorkerReady);
}

function outOfMemory(op: OperationName): { error: EngineErrorData; poisoned: true } {
  const mib = Math.round(heapCeilingBytes / (1024 * 1024));
  const what =
    op === 'query' || op === 'batch'
      ? 'Comparing or copying the text of many nested elements costs their whole text each time (`//a = //b` on deep chains): compare leaves (`//a/text()`), narrow the path, or ask for fewer nodes'
      : 'Send a smaller document, or ask for less (a smaller `indent`)';
  return {
    error: {
      code: 'out-of-memory',
      message: `The call ran out of its memory budget (${mib} MiB of engine heap), so it was stopped and the engine restarted. ${what}, and call again.`,
    },
    poisoned: true,
  };
}

function corrupted(breach: string): { error: EngineErrorData; poisoned: true } {
  return {
    error: {
      code: 'engine-crashed',
      message: `The XML engine overran its stack on this input (${breach}), so its answer was discarded and the engine restarted. Simplify the document, schema or expression and call again.`,
    },
    poisoned: true,
  };
}

/**
 * The buffers of a result's byte fields (xml_format's text), transferred rather than cloned. Each
 * was made for the result alone (never a view into libxml2's memory or a shared pool).
 */
function ownBuffers(result: unknown): ArrayBuffer[] {
  if (typeof result !== 'object' || result === null) return [];
  return Object.values(result).flatMap((value) =>
    value instanceof Uint8Array && value.buffer instanceof ArrayBuffer ? [value.buffer] : [],
  );
}

function describeFailure(error: unknown): { error: EngineErrorData; poisoned: boolean } {
  if (error instanceof EngineError) return { error: error.toData(), poisoned: false };
  const poisoned = isEngineTrap(error);
  const reason = error instanceof Error ? error.message : String(error);
  return {
    error: {
      code: poisoned ? 'engine-crashed' : 'xpath-failed',
      message: poisoned
        ? `The XML engine ran out of stack on this input (${reason}). Simplify the expression, the schema or the document and call again.`
        : `The XML engine failed on this input: ${reason}`,
    },
    poisoned,
  };
}
