/**
 * Access to libxml2's WebAssembly memory, which libxml2-wasm keeps private. Five things need it:
 * the heap's ceiling (growth past it is refused while a call runs, so libxml2's allocation fails
 * and the call ends, instead of the heap reaching gigabytes before any check after the call),
 * the XPath operation limit (a field of xmlXPathContext the library has no setter for), the
 * heap size (the memory never shrinks, so a worker whose heap grew too far is replaced), the
 * stack guard (stack-guard.ts: the stack has no overflow check of its own), and reading a
 * bounded slice of a huge text node (serialize.ts) without copying it out whole.
 *
 * The memory is caught as the module is instantiated, so `captureWasmMemory()` must run before
 * libxml2-wasm is first imported (the worker entry and the test setup do so). Without it every
 * function here reports "unavailable" and the engine still works, with the deadline as its only
 * budget.
 */

interface WasmMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  instantiate(source: unknown, imports?: Record<string, Record<string, unknown>>): Promise<unknown>;
  Memory: abstract new (...args: never[]) => WasmMemory;
  Instance: abstract new (...args: never[]) => { exports: Record<string, unknown> };
}

const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
let memory: WasmMemory | undefined;
let stackPointerOf: (() => number) | undefined;
let installed = false;
let refusedGrowths = 0;

const WASM_PAGE_BYTES = 65_536;

/**
 * Catches libxml2's memory as the module is instantiated and bounds it at `heapCeilingBytes`.
 * Emscripten grows the heap from inside malloc by calling the memory's `grow` and treats a throw
 * as "no memory", so malloc returns NULL and libxml2 fails the operation as out of memory (it
 * handles a failed allocation everywhere; its own tests inject them). Refusing in `grow` rather
 * than in the import that asks for it keeps the bound exact whatever step Emscripten tries.
 */
export function captureWasmMemory(heapCeilingBytes = Number.POSITIVE_INFINITY): void {
  if (installed) return;
  installed = true;
  const original = wasm.instantiate.bind(wasm);
  wasm.instantiate = async (source, imports) => {
    const result = await original(source, imports);
    const instance =
      result instanceof wasm.Instance
        ? result
        : (result as { instance: InstanceType<WasmApi['Instance']> }).instance;
    const candidates = [
      ...Object.values(instance.exports),
      ...Object.values(imports ?? {}).flatMap((ns) => Object.values(ns)),
    ];
    memory = candidates.find((value): value is WasmMemory => value instanceof wasm.Memory) ?? memory;
    if (memory && Number.isFinite(heapCeilingBytes)) boundGrowth(memory, heapCeilingBytes);
    const getStackPointer = instance.exports.emscripten_stack_get_current;
    if (typeof getStackPointer === 'function') stackPointerOf = getStackPointer as () => number;
    return result;
  };
}

function boundGrowth(bounded: WasmMemory, ceiling: number): void {
  const grow = bounded.grow.bind(bounded);
  bounded.grow = (pages) => {
    if (bounded.buffer.byteLength + pages * WASM_PAGE_BYTES > ceiling) {
      refusedGrowths++;
      throw new RangeError(`libxml2's heap may not grow past ${ceiling} bytes`);
    }
    return grow(pages);
  };
}

/**
 * How many times the heap was refused growth since the module loaded: a call during which this
 * rose ran out of memory, whatever libxml2 made of the failed allocation (an XPath error reads
 * "syntax error", a parse "out of memory").
 */
export function refusedHeapGrowths(): number {
  return refusedGrowths;
}

/** Current size of libxml2's heap in bytes, or undefined when the memory was not captured. */
export function wasmHeapBytes(): number | undefined {
  return memory?.buffer.byteLength;
}

/** libxml2's stack pointer now (the stack grows down), or undefined when the module was not captured. */
export function stackPointer(): number | undefined {
  return stackPointerOf?.();
}

/** libxml2's whole heap as 32-bit words (a fresh view: the buffer is replaced when memory grows). */
export function heapWords(): Int32Array | undefined {
  return memory ? new Int32Array(memory.buffer) : undefined;
}

let bytesView: Uint8Array | undefined;

/** libxml2's whole heap as bytes; one view, renewed when the memory grows (its buffer is replaced). */
export function heapBytes(): Uint8Array | undefined {
  if (!memory) return undefined;
  if (bytesView?.buffer !== memory.buffer) bytesView = new Uint8Array(memory.buffer);
  return bytesView;
}

export function readI32(address: number): number | undefined {
  if (!memory || address < 0 || address + 4 > memory.buffer.byteLength) return undefined;
  return new DataView(memory.buffer).getInt32(address, true);
}

export function writeI32(address: number, value: number): boolean {
  if (!memory || address < 0 || address + 4 > memory.buffer.byteLength) return false;
  new DataView(memory.buffer).setInt32(address, value, true);
  return true;
}
