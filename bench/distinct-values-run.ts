/**
 * The measurement bench/distinct-values.ts bundles twice (fontoxpath with and without the
 * distinct-values patch, ADR 0050) and runs under plain Node: one query on one generated
 * document, the first call (which makes the view's wrappers) and then repeat calls, as a
 * document held by handle gets them. Prints one JSON line.
 *   node <bundle> <shape> <n> <repeats> [query instead of the shape's]
 * shape `distinct`: <r><e a="v0"/>…</r>, n values all distinct, `count(distinct-values(//@a))`;
 * shape `group`: n records of 50 keys, the grouping idiom of issue 31.
 */
import { captureWasmMemory } from '../src/engine/libxml2/memory.js';

captureWasmMemory();

const { documentPointer } = await import('../src/engine/libxml2/tree.js');
const { evaluateXPath31, Xpath31View } = await import('../src/engine/libxml2/xpath31-view.js');
const { parseDocument } = await import('../src/engine/parse.js');

const [shape = 'distinct', n = '2000', repeats = '3', own] = process.argv.slice(2);
const count = Number(n);
const xml =
  shape === 'distinct'
    ? `<r>${Array.from({ length: count }, (_, i) => `<e a="v${i}"/>`).join('')}</r>`
    : `<d>${Array.from({ length: count }, (_, i) => `<r k="k${i % 50}" v="${i}"/>`).join('')}</d>`;
const query =
  own ??
  (shape === 'distinct'
    ? 'count(distinct-values(//@a))'
    : "for $k in distinct-values(//r/@k) return $k || ':' || count(//r[@k = $k])");

const doc = parseDocument(xml, 'query');
const ptr = documentPointer(doc);
const view = new Xpath31View(ptr);
const times: number[] = [];
let answer = '';
for (let run = 0; run <= Number(repeats); run++) {
  const start = performance.now();
  const items = evaluateXPath31(ptr, query, {}, { view });
  times.push(performance.now() - start);
  answer = items.map((item) => (item.kind === 'atomic' ? item.text : item.kind)).join(' ');
}
const repeat = times.slice(1).sort((a, b) => a - b);
console.log(
  JSON.stringify({
    shape,
    n: count,
    bytes: xml.length,
    first: times[0],
    repeat: repeat.length ? repeat[Math.floor(repeat.length / 2)] : null,
    answer: answer.slice(0, 40),
  }),
);
doc.dispose();
