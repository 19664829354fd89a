/**
 * What xml_inspect's outline costs against the inspect it replaced (bench/inspect-before.ts),
 * in process, paired: each iteration parses a document once, then runs the old and the new
 * inspect on that tree, alternating which goes first, so both see the same machine state. The
 * report is the ratio of the medians: the walk and answer alone, and the whole engine call
 * (parse + inspect). No timed assertions: it reports.
 *
 *   npx tsx bench/inspect-outline.ts [--quick]     (npm run bench runs it as one of its sections)
 *
 * Also times the hard documents of issue 12 (300+ element names, 10^5 attributes on one
 * element, 600,000 distinct names) and gives the text's length at the default budget.
 */
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { captureWasmMemory } from '../src/engine/libxml2/memory.js';
import { docbookBook, manyAttributes } from '../test/support/shape-documents.js';
import { type BenchDocument, generateDocument, SIZES } from './documents.js';
import { median, ms, p90, ratio, table } from './stats.js';

captureWasmMemory();
const { inspectDocument } = await import('../src/engine/inspect/inspect.js');
const { inspectDocumentBefore } = await import('./inspect-before.js');
const { parseDocument } = await import('../src/engine/parse.js');

export interface OutlineCase {
  label: string;
  bytes: number;
  parse: number[];
  before: number[];
  outline: number[];
  /** Characters of the outline lines and the details at the default budget. */
  answerChars: number;
}

function timed(run: () => unknown): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

/** A B (then B A) on one parse per iteration; warm-up iterations are not kept. */
export function measureOutline(
  label: string,
  xml: string,
  iterations: number,
  warmup: number,
  collectGarbage: () => void = () => {},
): OutlineCase {
  return measurePaired(label, xml, iterations, warmup, collectGarbage, [
    (tree) => inspectDocumentBefore(tree),
    (tree) => inspectDocument(tree),
  ]);
}

type Tree = ReturnType<typeof parseDocument>;

/**
 * Two inspects of one tree, `before` and `outline` (the names of the report this was written
 * for), A B then B A on one parse per iteration; warm-up iterations are not kept.
 */
export function measurePaired(
  label: string,
  xml: string,
  iterations: number,
  warmup: number,
  collectGarbage: () => void,
  [before, after]: [(tree: Tree) => unknown, (tree: Tree) => unknown],
): OutlineCase {
  const result: OutlineCase = {
    label,
    bytes: Buffer.byteLength(xml),
    parse: [],
    before: [],
    outline: [],
    answerChars: 0,
  };
  for (let i = 0; i < warmup + iterations; i++) {
    collectGarbage();
    let doc: ReturnType<typeof parseDocument> | undefined;
    const parse = timed(() => {
      doc = parseDocument(xml, 'query');
    });
    const tree = doc as ReturnType<typeof parseDocument>;
    try {
      const sides: Array<[number[], () => unknown]> = [
        [result.before, () => before(tree)],
        [result.outline, () => after(tree)],
      ];
      if (i % 2 === 1) sides.reverse();
      const times = sides.map(([, run]) => {
        collectGarbage();
        return timed(run);
      });
      if (i < warmup) continue;
      result.parse.push(parse);
      for (const [k, [samples]] of sides.entries()) samples.push(times[k] as number);
    } finally {
      tree.dispose();
    }
  }
  const doc = parseDocument(xml, 'query');
  try {
    const answer = inspectDocument(doc);
    result.answerChars = answer.outline.join('\n').length + Object.values(answer.details).join('\n').length;
  } finally {
    doc.dispose();
  }
  return result;
}

export function outlineTable(cases: OutlineCase[]): string {
  return pairedTable(cases, ['before', 'outline'], {
    header: 'outline + details (chars)',
    cell: (c) => c.answerChars.toLocaleString('en'),
  });
}

/**
 * The table of a paired measurement (`measurePaired`): parse, each side's median and p90, and
 * the after ÷ before ratios of the walk alone and of parse + walk; `extra`, one more column.
 */
export function pairedTable(
  cases: OutlineCase[],
  [beforeLabel, afterLabel]: [string, string],
  extra?: { header: string; cell: (c: OutlineCase) => string },
): string {
  return table(
    [
      'document',
      'n',
      'parse median',
      `${beforeLabel}: median / p90`,
      `${afterLabel}: median / p90`,
      'ratio (walk)',
      'ratio (parse + walk)',
      ...(extra ? [extra.header] : []),
    ],
    cases.map((c) => {
      const whole = (side: number[]) => median(side.map((t, i) => t + (c.parse[i] as number)));
      return [
        `${c.label} (${c.bytes.toLocaleString('en')} B)`,
        String(c.before.length),
        ms(median(c.parse)),
        `${ms(median(c.before))} / ${ms(p90(c.before))}`,
        `${ms(median(c.outline))} / ${ms(p90(c.outline))}`,
        ratio(median(c.outline) / median(c.before)),
        ratio(whole(c.outline) / whole(c.before)),
        ...(extra ? [extra.cell(c)] : []),
      ];
    }),
  );
}

/** The record documents (2 MB, 8 MiB) and the hard documents, as `npm run bench` reports them. */
export function outlineCases(
  records: BenchDocument[],
  quick: boolean,
  collectGarbage?: () => void,
): OutlineCase[] {
  const n = (full: number) => (quick ? Math.max(3, Math.floor(full / 5)) : full);
  const cases = records.map((doc) => measureOutline(doc.label, doc.xml, n(20), 2, collectGarbage));
  const hard: Array<[string, string, number]> = [
    ['DocBook, 354 element names', docbookBook(), n(30)],
    ['one element with 10^5 attributes', manyAttributes(100_000), n(10)],
    [
      '600,000 distinct element names',
      `<r>${Array.from({ length: 600_000 }, (_, i) => `<n${i}/>`).join('')}</r>`,
      n(5),
    ],
  ];
  for (const [label, xml, iterations] of hard)
    cases.push(measureOutline(label, xml, iterations, 1, collectGarbage));
  return cases;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const records = SIZES.filter((size) => size.label === '2 MB' || size.label === '8 MiB').map((size) =>
    generateDocument(size),
  );
  v8.setFlagsFromString('--expose-gc');
  const collectGarbage = vm.runInNewContext('gc') as () => void;
  console.log(outlineTable(outlineCases(records, quick, collectGarbage)));
}
