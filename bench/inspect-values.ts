/**
 * What xml_inspect's values cost (issue 25, ADR 0037): in process, paired on one parse, the
 * inspect that reads names and counts only (`values: false`) against today's, which also reads
 * every attribute's value and every leaf's text, on the 2 MB and 8 MiB record documents and on a
 * document of 600,000 distinct values. No timed assertions: it reports ratios of medians.
 *
 *   npx tsx bench/inspect-values.ts [--quick]     (npm run bench runs it as one of its sections)
 */
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { captureWasmMemory } from '../src/engine/libxml2/memory.js';
import { type BenchDocument, generateDocument, SIZES } from './documents.js';

captureWasmMemory();
const { inspectDocument } = await import('../src/engine/inspect/inspect.js');
const { measurePaired, pairedTable } = await import('./inspect-outline.js');

type ValuesCase = ReturnType<typeof measurePaired>;

/** 600,000 leaves, each with a text no other has (base 36: short, mostly not numbers), 6.6 MB. */
export function distinctValues(records = 600_000): string {
  return `<r>${Array.from({ length: records }, (_, i) => `<v>${(i + 36 ** 3).toString(36)}</v>`).join('')}</r>`;
}

export function valuesCases(
  records: BenchDocument[],
  quick: boolean,
  collectGarbage?: () => void,
): ValuesCase[] {
  const n = (full: number) => (quick ? Math.max(3, Math.floor(full / 5)) : full);
  const sides: Parameters<typeof measurePaired>[5] = [
    (tree) => inspectDocument(tree, { values: false }),
    (tree) => inspectDocument(tree),
  ];
  const gc = collectGarbage ?? (() => {});
  const cases = records.map((doc) => measurePaired(doc.label, doc.xml, n(20), 2, gc, sides));
  cases.push(measurePaired('600,000 distinct values', distinctValues(), n(8), 1, gc, sides));
  return cases;
}

export function valuesTable(cases: ValuesCase[]): string {
  return pairedTable(cases, ['without values', 'with values']);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const records = SIZES.filter((size) => size.label === '2 MB' || size.label === '8 MiB').map((size) =>
    generateDocument(size),
  );
  v8.setFlagsFromString('--expose-gc');
  const collectGarbage = vm.runInNewContext('gc') as () => void;
  console.log(valuesTable(valuesCases(records, quick, collectGarbage)));
}
