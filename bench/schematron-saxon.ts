/**
 * Schematron on this server's engines against the official validation, paired (ADR 0053): the
 * EN 16931 UBL rules (test/fixtures/en16931) on invoices of growing size, made from the example
 * `ubl-tc434-example1` by repeating its lines. Each pair runs this engine (a bundle, plain Node)
 * and Saxon-HE on the rules' official XSLT, in alternating order; both sides report the time of
 * a repeat validation, the rules already compiled (Saxon's `-repeat`, this engine's second call
 * with the same schema; the median of the runs after the first on both sides), and the figure is
 * the median ratio ours ÷ Saxon. The failed-assert ids
 * of both must agree. Needs java and Debian's libsaxonhe-java.
 *
 *   npx tsx bench/schematron-saxon.ts [pairs=3] [line counts=10,500,2500]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle, ROOT } from './bundle.js';

const pairs = Number(process.argv[2] ?? 3);
const lineCounts = (process.argv[3] ?? '10,500,2500').split(',').map(Number);
const FIXTURES = join(ROOT, 'test/fixtures/en16931');
const SCHEMA = join(FIXTURES, 'EN16931-UBL-validation-preprocessed.sch');
const XSLT = join(FIXTURES, 'EN16931-UBL-validation.xslt');
const SAXON = '/usr/share/java/Saxon-HE.jar';
const REPEATS = 5;

const example = readFileSync(join(FIXTURES, 'examples/ubl-tc434-example1.xml'), 'utf8');
const lines = example.match(/<cac:InvoiceLine>[\s\S]*?<\/cac:InvoiceLine>/g) ?? [];
const head = example.slice(0, example.indexOf('<cac:InvoiceLine>'));
const tail = example.slice(example.lastIndexOf('</cac:InvoiceLine>') + '</cac:InvoiceLine>'.length);

/** An invoice of `count` lines (the example's, repeated with fresh ids): its totals no longer add up, alike for both. */
function invoice(count: number): string {
  const body = Array.from({ length: count }, (_, i) =>
    (lines[i % lines.length] as string).replace(/<cbc:ID>\d+<\/cbc:ID>/, `<cbc:ID>${i + 1}</cbc:ID>`),
  );
  return head + body.join('\n    ') + tail;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const ours = await bundle('bench/schematron-run.ts', 'oxml-bench-schematron');
const folder = mkdtempSync(join(tmpdir(), 'oxml-bench-schematron-'));

function runOurs(file: string): { repeat: number; ids: Record<string, number> } {
  const child = spawnSync(process.execPath, [ours, file, SCHEMA, String(REPEATS)], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`the engine failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').pop() as string);
}

function runSaxon(file: string): { repeat: number; ids: Record<string, number> } {
  const out = join(folder, 'out.xml');
  const child = spawnSync(
    'java',
    [
      '-cp',
      SAXON,
      'net.sf.saxon.Transform',
      `-s:${file}`,
      `-xsl:${XSLT}`,
      `-o:${out}`,
      `-repeat:${REPEATS + 1}`,
      '-t',
    ],
    { encoding: 'utf8' },
  );
  if (child.status !== 0) throw new Error(`Saxon failed: ${child.stderr}`);
  // Each run's time; the first (the JIT still cold) is left out, as this engine's first call is.
  const runs = [...child.stderr.matchAll(/Execution time: (?:[\d.]+s \()?([\d.]+)ms/g)].map((m) =>
    Number(m[1]),
  );
  const ids: Record<string, number> = {};
  for (const [, id] of readFileSync(out, 'utf8').matchAll(/<svrl:failed-assert\b[^>]*?\bid="([^"]*)"/g)) {
    ids[id as string] = (ids[id as string] ?? 0) + 1;
  }
  return { repeat: median(runs.slice(1)), ids };
}
const canon = (ids: Record<string, number>) => JSON.stringify(Object.entries(ids).sort());

console.log('| invoice | bytes | this engine (repeat) | Saxon-HE (repeat) | ours ÷ Saxon | failed asserts |');
console.log('|---|---|---|---|---|---|');
try {
  for (const count of lineCounts) {
    const xml = invoice(count);
    const file = join(folder, `invoice-${count}.xml`);
    writeFileSync(file, xml);
    const mine: number[] = [];
    const theirs: number[] = [];
    let ids = '';
    for (let pair = 0; pair < pairs; pair++) {
      const order = pair % 2 === 0 ? ['ours', 'saxon'] : ['saxon', 'ours'];
      for (const which of order) {
        const run = which === 'ours' ? runOurs(file) : runSaxon(file);
        (which === 'ours' ? mine : theirs).push(run.repeat);
        if (ids === '') ids = canon(run.ids);
        else if (canon(run.ids) !== ids) throw new Error(`failed asserts differ on ${count} lines`);
      }
    }
    const ratios = mine.map((value, index) => value / (theirs[index] as number));
    console.log(
      `| ${count} lines | ${Buffer.byteLength(xml).toLocaleString('en-US')} | ${median(mine).toFixed(0)} ms | ${median(theirs).toFixed(0)} ms | ${median(ratios).toFixed(2)} | ${ids.length > 80 ? `${ids.slice(0, 77)}…` : ids} |`,
    );
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
