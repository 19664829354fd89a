/**
 * What an XPath 3.1 view of a held document takes, in process: bench/xpath31-figures.ts bundles
 * this file (bench/bundle.ts) and runs it with `node --expose-gc`, as an engine worker runs the
 * same code. Parses one bench document, then asks the engine (`queryDocument`, which keeps one
 * view per parsed document) an XPath 1.0 question and its XPath 3.1 form: the JavaScript heap
 * and RSS after a full collection, before the first 3.1 call, just after it, after it and
 * collected, and after repeats; the view's wrappers and document-order index; the call times.
 * Arguments: the size label, the XPath 1.0 expression, the XPath 3.1 expression, repeats.
 * Prints one JSON line.
 */
import { captureWasmMemory, wasmHeapBytes } from '../src/engine/libxml2/memory.js';

captureWasmMemory();

const { queryDocument } = await import('../src/engine/query/query.js');
const { xpath31View } = await import('../src/engine/query/xpath31.js');
const { parseDocument } = await import('../src/engine/parse.js');
const { generateDocument, SIZES } = await import('./documents.js');

const [label = '8 MiB', xpath10 = 'count(//record)', xpath31 = 'count(//record ! .)', repeatArg = '3'] =
  process.argv.slice(2);
const repeats = Number(repeatArg);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const MiB = 1024 * 1024;
function memory(): { heapMiB: number; rssMiB: number; wasmMiB: number } {
  const usage = process.memoryUsage();
  return { heapMiB: usage.heapUsed / MiB, rssMiB: usage.rss / MiB, wasmMiB: (wasmHeapBytes() ?? 0) / MiB };
}
function collected(): ReturnType<typeof memory> {
  gc?.();
  gc?.();
  return memory();
}
function timed<T>(run: () => T): { ms: number; value: T } {
  const start = performance.now();
  const value = run();
  return { ms: performance.now() - start, value };
}

const size = SIZES.find((s) => s.label === label);
if (!size) throw new Error(`no bench document ${label}`);
const bench = generateDocument(size);
const doc = parseDocument(bench.xml, 'query');
const v10: number[] = [];
for (let i = 0; i < repeats; i++) v10.push(timed(() => queryDocument(doc, xpath10)).ms);
const before = collected();
const first = timed(() => queryDocument(doc, xpath31));
const justAfter = memory();
const after = collected();
const v31: number[] = [];
for (let i = 0; i < repeats; i++) v31.push(timed(() => queryDocument(doc, xpath31)).ms);
const afterRepeats = collected();
const view = xpath31View(doc);
console.log(
  JSON.stringify({
    size: label,
    bytes: bench.bytes,
    xpath10,
    xpath31,
    answer: first.value.values[0],
    version: first.value.xpath_version,
    firstMs: first.ms,
    repeat31Ms: v31,
    repeat10Ms: v10,
    before,
    justAfter,
    after,
    afterRepeats,
    wrappers: view.size,
    orderedNodes: view.orderedNodes,
    orderBytes: view.orderBytes,
  }),
);
doc.dispose();
