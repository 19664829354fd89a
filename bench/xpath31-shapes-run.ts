/**
 * Questions on one document through the engine (`queryDocument`, the XPath 3.1 view kept with the
 * parse, as a document held by handle gets it), bundled by bench/bundle.ts and run by plain Node:
 * bench/xpath31-paths.ts runs it on bundles with and without libxml2 selecting paths (ADR 0055).
 * After five untimed rounds on a 200 KB document of its own (the JIT warmed), for each expression
 * in turn: the first call, then repeat calls. Prints one JSON line.
 *   node <bundle> <file | gen:<label> | distinct:<n> | group:<n>> <repeats> <expression>… [--ns p=uri …]
 * gen: the bench's own records (bench/documents.ts); distinct: <r><e a="v0"/>…</r>, n values
 * all distinct; group: n records of 50 keys, `<r k="k7" v="7"/>`.
 */
import { readFileSync } from 'node:fs';
import { captureWasmMemory } from '../src/engine/libxml2/memory.js';

captureWasmMemory();

const { queryDocument } = await import('../src/engine/query/query.js');
const { parseDocument } = await import('../src/engine/parse.js');
const { generateDocument, SIZES } = await import('./documents.js');

const [source = 'gen:8 MiB', repeatArg = '3', ...rest] = process.argv.slice(2);
const split = rest.indexOf('--ns');
const expressions = split === -1 ? rest : rest.slice(0, split);
const namespaces = Object.fromEntries(
  (split === -1 ? [] : rest.slice(split + 1)).map((binding) => binding.split(/=(.*)/s).slice(0, 2)),
);

function documentText(source: string): string {
  const [shape = '', arg = ''] = source.split(/:(.*)/s);
  const count = Number(arg);
  if (shape === 'gen') {
    const size = SIZES.find((s) => s.label === arg);
    if (!size) throw new Error(`no bench document ${arg}`);
    return generateDocument(size).xml;
  }
  if (shape === 'distinct')
    return `<r>${Array.from({ length: count }, (_, i) => `<e a="v${i}"/>`).join('')}</r>`;
  if (shape === 'group')
    return `<d>${Array.from({ length: count }, (_, i) => `<r k="k${i % 50}" v="${i}"/>`).join('')}</d>`;
  return readFileSync(source, 'utf8');
}

// JIT warm-up on a small document of the bench's own, so the timed first call is the
// document's (its view built), not the engine's first in this process.
const warm = parseDocument(
  generateDocument(SIZES.find((s) => s.label === '200 KB') as (typeof SIZES)[number]).xml,
  'query',
);
for (let round = 0; round < 5; round++) {
  for (const expression of expressions) {
    try {
      queryDocument(warm, expression, namespaces, { maxChars: 4000, maxValues: 50 });
    } catch {
      // A question about another document's names may fail here; only the warming counts.
    }
  }
}
warm.dispose();

const xml = documentText(source);
const parseStart = performance.now();
const doc = parseDocument(xml, 'query');
const parse = performance.now() - parseStart;
const results = expressions.map((expression) => {
  const times: number[] = [];
  let answer = '';
  for (let run = 0; run <= Number(repeatArg); run++) {
    const start = performance.now();
    const result = queryDocument(doc, expression, namespaces, { maxChars: 4000, maxValues: 50 });
    times.push(performance.now() - start);
    answer = `${result.xpath_version ?? '1.0'} ${result.count}: ${result.values.join(' ')}`;
  }
  const repeats = times.slice(1).sort((a, b) => a - b);
  return {
    first: times[0] as number,
    repeat: repeats.length ? (repeats[Math.floor(repeats.length / 2)] as number) : null,
    answer: answer.slice(0, 120),
  };
});
console.log(JSON.stringify({ bytes: Buffer.byteLength(xml), parse, results }));
doc.dispose();
