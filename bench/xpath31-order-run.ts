/**
 * The measurement bench/xpath31-order.ts bundles (with and without fontoxpath's document-order
 * patch) and runs under plain Node: XPath 3.1 through the facade against libxml2's XPath 1.0.
 * Prints one JSON line per measurement. Argument: the comma-separated size labels to run.
 */
import { captureWasmMemory } from '../src/engine/libxml2/memory.js';

captureWasmMemory();

const { documentPointer } = await import('../src/engine/libxml2/tree.js');
const { evaluateXPath } = await import('../src/engine/libxml2/xpath.js');
const { evaluateXPath31, Xpath31View } = await import('../src/engine/libxml2/xpath31-view.js');
const { parseDocument } = await import('../src/engine/parse.js');
const { generateDocument, SIZES } = await import('./documents.js');

const patched = process.env.OXML_BENCH_PATCHED === '1';
const labels = (process.argv[2] ?? '200 KB,2 MB,8 MiB').split(',');
const QUERIES = ['sum(//record/price)', 'distinct-values(//record/@category)', 'count(//record[price > 50])'];
/** Warm runs stop once this much time went into one query. */
const WARM_BUDGET_MS = 15_000;

const print = (entry: Record<string, unknown>) => console.log(JSON.stringify({ patched, ...entry }));

for (const size of SIZES.filter((s) => labels.includes(s.label))) {
  const bench = generateDocument(size);
  const doc = parseDocument(bench.xml, 'query');
  const ptr = documentPointer(doc);

  if (patched) {
    // The index alone: the one walk and what it holds.
    const view = new Xpath31View(ptr);
    const root = view.getFirstChild(view.document) as NonNullable<ReturnType<typeof view.getFirstChild>>;
    const arrays = process.memoryUsage().arrayBuffers;
    const start = performance.now();
    view.compareDocumentOrder(view.document, root);
    const ms = performance.now() - start;
    print({
      size: size.label,
      what: 'order index',
      ms,
      nodes: view.orderedNodes,
      bytes: view.orderBytes,
      arrayBuffersDelta: process.memoryUsage().arrayBuffers - arrays,
    });
  }

  for (const query of QUERIES) {
    const times: number[] = [];
    let answer = '';
    const view = new Xpath31View(ptr);
    // The first run makes the view's wrappers (and the order index); the next reuse them.
    for (let run = 0; run < 6; run++) {
      const start = performance.now();
      const items = evaluateXPath31(ptr, query, {}, { view });
      times.push(performance.now() - start);
      answer = items.map((item) => (item.kind === 'atomic' ? item.text : item.kind)).join(' ');
      if (times.reduce((a, b) => a + b, 0) > WARM_BUDGET_MS) break;
    }
    const warm = times.slice(1).sort((a, b) => a - b);
    print({
      size: size.label,
      what: `3.1 ${query}`,
      cold: times[0],
      warm: warm.length ? warm[Math.floor(warm.length / 2)] : null,
      runs: times.length,
      wrappers: view.size,
      answer: answer.slice(0, 60),
    });
  }

  const times: number[] = [];
  let count = 0;
  for (let run = 0; run < 5; run++) {
    const start = performance.now();
    const value = evaluateXPath(ptr, 'count(//record[price > 50])', {}, 0, (v) =>
      v.type === 'number' ? v.value : Number.NaN,
    );
    times.push(performance.now() - start);
    count = value as number;
  }
  times.sort((a, b) => a - b);
  print({
    size: size.label,
    what: '1.0 count(//record[price > 50])',
    warm: times[2],
    cold: null,
    answer: count,
  });
  doc.dispose();
}
