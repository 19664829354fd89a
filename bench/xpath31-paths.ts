/**
 * XPath 3.1 with and without libxml2 selecting the paths XPath 1.0 can say (ADR 0055), paired:
 * for each case a process on the bundle without it ("before": every step in fontoxpath) and one
 * with it ("after") alternate, B A then A B; each process parses the document once and asks the
 * XPath 1.0 form (where there is one) and the XPath 3.1 question, first call then repeats, by
 * `queryDocument` as a held document gets them. Figures: medians over pairs of after ÷ before
 * (repeat calls) and of 3.1 ÷ 1.0 within each process. A process past the cap is killed.
 *
 *   npx tsx bench/xpath31-paths.ts [pairs=3] [repeats=3] [cap seconds=300] [case names, comma-separated]
 */
import { spawnSync } from 'node:child_process';
import { fontoxpathOrderEsbuild } from '../scripts/fontoxpath-patches.js';
import { bundle } from './bundle.js';
import { median } from './stats.js';
import { withoutSelection } from './without-selection.js';

const pairs = Number(process.argv[2] ?? 3);
const repeats = process.argv[3] ?? '3';
const capSeconds = Number(process.argv[4] ?? 300);
const only = process.argv[5]?.split(',');

interface Case {
  name: string;
  source: string;
  /** The same question in XPath 1.0, for the 3.1 ÷ 1.0 ratio; '' when XPath 1.0 cannot say it. */
  xpath10: string;
  xpath31: string;
}

/** The bench's own three questions (bench/xpath31-figures.ts) and issue 31's two shapes. */
const CASES: Case[] = [
  ...['200 KB', '8 MiB'].flatMap((size) => [
    {
      name: `count with a predicate, ${size}`,
      source: `gen:${size}`,
      xpath10: 'count(//record[price > 50])',
      xpath31: 'count(//record[price > 50]) => xs:integer()',
    },
    {
      name: `sum over computed values, ${size}`,
      source: `gen:${size}`,
      xpath10: 'sum(//record/price)',
      xpath31: 'sum(//record ! number(price))',
    },
    {
      name: `sum over a path, ${size}`,
      source: `gen:${size}`,
      xpath10: 'sum(//record/price)',
      xpath31: 'sum(//record/price) => xs:double()',
    },
  ]),
  {
    name: 'count(distinct-values(//@a)), 10^5 distinct',
    source: 'distinct:100000',
    xpath10: 'count(//@a)',
    xpath31: 'count(distinct-values(//@a))',
  },
  {
    name: 'grouping idiom, 50 keys × 10^5 records',
    source: 'group:100000',
    xpath10: '',
    xpath31: "for $k in distinct-values(//r/@k) return $k || ':' || count(//r[@k = $k])",
  },
];

const entry = 'bench/xpath31-shapes-run.ts';
const bundles = {
  before: await bundle(entry, 'oxml-bench-paths/before', [fontoxpathOrderEsbuild(), withoutSelection]),
  after: await bundle(entry, 'oxml-bench-paths/after', true),
};

interface Timed {
  first: number;
  repeat: number;
  answer: string;
}
interface Run {
  bytes: number;
  results: Timed[];
}

function run(which: 'before' | 'after', item: Case): Run | null {
  const expressions = item.xpath10 ? [item.xpath10, item.xpath31] : [item.xpath31];
  const child = spawnSync(process.execPath, [bundles[which], item.source, repeats, ...expressions], {
    encoding: 'utf8',
    timeout: capSeconds * 1000,
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) return null;
  return JSON.parse(child.stdout.trim().split('\n').pop() as string) as Run;
}

const ms = (value: number) => (value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(1)} ms`);
const x = (value: number) => `${value.toFixed(2)}×`;

console.log(
  '| case | bytes | 1.0 repeat | 3.1 before: first / repeat | 3.1 after: first / repeat | **after ÷ before** | 3.1 ÷ 1.0 before → after | answer |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const item of CASES.filter((c) => !only || only.some((name) => c.name.includes(name)))) {
  const got: Record<'before' | 'after', Run[]> = { before: [], after: [] };
  let capped = false;
  for (let pair = 0; pair < pairs; pair++) {
    const order: Array<'before' | 'after'> = pair % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const which of order) {
      const result = run(which, item);
      if (result === null) {
        if (which === 'after') throw new Error(`the run with selection failed on ${item.name}`);
        capped = true;
      } else got[which].push(result);
    }
  }
  const last = (r: Run) => r.results[r.results.length - 1] as Timed;
  const after = got.after.map(last);
  const before = got.before.map(last);
  for (const b of before)
    if (b.answer !== after[0]?.answer)
      throw new Error(`answers differ on ${item.name}: ${b.answer} / ${after[0]?.answer}`);
  const ratios = before.map((b, i) => (after[i] ?? (after[0] as Timed)).repeat / b.repeat);
  const v10 = item.xpath10 ? got.after.map((r) => (r.results[0] as Timed).repeat) : [];
  const per10 = (runs: Run[]) =>
    item.xpath10 ? x(median(runs.map((r) => last(r).repeat / (r.results[0] as Timed).repeat))) : '–';
  const cells = (runs: Timed[]) =>
    runs.length ? `${ms(median(runs.map((t) => t.first)))} / ${ms(median(runs.map((t) => t.repeat)))}` : '–';
  console.log(
    `| ${item.name} | ${got.after[0]?.bytes} | ${v10.length ? ms(median(v10)) : '–'} | ${capped && !before.length ? `> ${capSeconds} s` : cells(before)} | ${cells(after)} | **${ratios.length ? median(ratios).toFixed(3) : '–'}** | ${got.before.length ? per10(got.before) : '–'} → ${per10(got.after)} | ${(after[0] as Timed).answer.slice(0, 40)} |`,
  );
}
