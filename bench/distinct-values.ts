/**
 * fn:distinct-values with and without its patch (ADR 0050), paired: for each case, a process on
 * the bundle without the patch ("before") and one with it ("after") alternate, B A then A B, and
 * the figure is the median of the per-pair ratios after ÷ before. Both bundles have every other
 * patch of scripts/fontoxpath-patches.ts. A "before" process past the cap is killed and reported
 * as "> cap"; its pair's ratio as "<".
 *
 *   npx tsx bench/distinct-values.ts [pairs=3] [cap seconds=120] [cases=distinct:2000,distinct:8000,distinct:32000,distinct:100000,group:10000]
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Plugin } from 'esbuild';
import {
  FONTOXPATH_DIST,
  patchFontoxpathDurations,
  patchFontoxpathOrder,
  patchFontoxpathRegex,
  patchXspattern,
  XSPATTERN_ESM,
} from '../scripts/fontoxpath-patches.js';
import { bundle } from './bundle.js';

const pairs = Number(process.argv[2] ?? 3);
const capSeconds = Number(process.argv[3] ?? 120);
const cases = (
  process.argv[4] ?? 'distinct:2000,distinct:8000,distinct:32000,distinct:100000,group:10000'
).split(',');

/** Every patch but the distinct-values one: the baseline. */
const withoutDistinct: Plugin = {
  name: 'fontoxpath-without-distinct',
  setup(esbuild) {
    esbuild.onLoad({ filter: FONTOXPATH_DIST }, (args) => ({
      contents: patchFontoxpathRegex(
        patchFontoxpathDurations(patchFontoxpathOrder(readFileSync(args.path, 'utf8'), args.path), args.path),
        args.path,
      ),
      loader: 'js',
    }));
    esbuild.onLoad({ filter: XSPATTERN_ESM }, (args) => ({
      contents: patchXspattern(readFileSync(args.path, 'utf8'), args.path),
      loader: 'js',
    }));
  },
};

const entry = 'bench/distinct-values-run.ts';
const bundles = {
  before: await bundle(entry, 'oxml-bench-distinct/before', [withoutDistinct]),
  after: await bundle(entry, 'oxml-bench-distinct/after', true),
};

interface Run {
  first: number;
  repeat: number | null;
  answer: string;
  bytes: number;
}

function run(which: 'before' | 'after', shape: string, n: string, repeats: number): Run | null {
  const child = spawnSync(process.execPath, [bundles[which], shape, n, String(repeats)], {
    encoding: 'utf8',
    timeout: capSeconds * 1000,
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) return null;
  return JSON.parse(child.stdout.trim().split('\n').pop() as string) as Run;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};
const ms = (value: number) => (value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${value.toFixed(0)} ms`);

console.log(
  '| case | bytes | before (first / repeat) | after (first / repeat) | after ÷ before (repeat) | answer |',
);
console.log('|---|---|---|---|---|---|');
for (const item of cases) {
  const [shape = 'distinct', n = '2000'] = item.split(':');
  const ratios: number[] = [];
  const before: Run[] = [];
  const after: Run[] = [];
  let capped = false;
  for (let pair = 0; pair < pairs && !capped; pair++) {
    const order: Array<'before' | 'after'> = pair % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    const got: Partial<Record<'before' | 'after', Run | null>> = {};
    // The baseline is slow enough at 8k that one repeat call is what it can afford.
    for (const which of order) got[which] = run(which, shape, n, which === 'before' ? 1 : 3);
    if (!got.after) throw new Error(`the patched run failed on ${item}`);
    after.push(got.after);
    if (!got.before) {
      capped = true;
      continue;
    }
    if (got.before.answer !== got.after.answer) throw new Error(`answers differ on ${item}`);
    before.push(got.before);
    ratios.push((got.after.repeat as number) / (got.before.repeat as number));
  }
  const a = after[0] as Run;
  const b = before.length
    ? `${ms(median(before.map((r) => r.first)))} / ${ms(median(before.map((r) => r.repeat as number)))}`
    : `> ${capSeconds} s (killed)`;
  const ratio = ratios.length
    ? median(ratios).toPrecision(2)
    : `< ${(median(after.map((r) => r.repeat as number)) / (capSeconds * 500)).toPrecision(1)}`;
  console.log(
    `| ${item} | ${a.bytes} | ${b} | ${ms(median(after.map((r) => r.first)))} / ${ms(median(after.map((r) => r.repeat as number)))} | ${ratio} | ${a.answer} |`,
  );
}
