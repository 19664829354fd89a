/**
 * One XPath 3.1 question on one document through the engine (`queryDocument`, the view kept with
 * the parse, as a document held by handle gets it), bundled by bench/bundle.ts and run by plain
 * Node. Times the first call (which builds the view) and repeat calls; prints one JSON line.
 *   node <bundle> <file | gen:<label>> <repeats> <expression> [prefix=uri …]
 */
import { readFileSync } from 'node:fs';
import { captureWasmMemory } from '../src/engine/libxml2/memory.js';

captureWasmMemory();

const { queryDocument } = await import('../src/engine/query/query.js');
const { parseDocument } = await import('../src/engine/parse.js');
const { generateDocument, SIZES } = await import('./documents.js');

const [source = 'gen:8 MiB', repeatArg = '3', expression = 'count(//record)', ...bindings] =
  process.argv.slice(2);
const namespaces = Object.fromEntries(bindings.map((binding) => binding.split(/=(.*)/s).slice(0, 2)));
let xml: string;
if (source.startsWith('gen:')) {
  const size = SIZES.find((s) => s.label === source.slice(4));
  if (!size) throw new Error(`no bench document ${source}`);
  xml = generateDocument(size).xml;
} else xml = readFileSync(source, 'utf8');

const parseStart = performance.now();
const doc = parseDocument(xml, 'query');
const parse = performance.now() - parseStart;
const times: number[] = [];
let answer = '';
for (let run = 0; run <= Number(repeatArg); run++) {
  const start = performance.now();
  const result = queryDocument(doc, expression, namespaces, { maxChars: 4000, maxValues: 50 });
  times.push(performance.now() - start);
  answer = `${result.xpath_version ?? '1.0'} ${result.count}: ${result.values.join(' ')}`;
}
const repeats = times.slice(1).sort((a, b) => a - b);
console.log(
  JSON.stringify({
    bytes: Buffer.byteLength(xml),
    parse,
    first: times[0],
    repeat: repeats.length ? repeats[Math.floor(repeats.length / 2)] : null,
    answer: answer.slice(0, 200),
  }),
);
doc.dispose();
