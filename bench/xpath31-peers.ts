/**
 * XPath 3.1 here against BaseX and Saxon-HE (issue 31 item 4), on questions of the shapes models
 * ask, over public documents from Debian packages and two generated ones. For each case, in one
 * run: this engine (bench/xpath31-shapes-run.ts bundled and run by plain Node: the document
 * parsed once, the first call, then the median of repeat calls, as a document held by handle
 * gets them); BaseX (Debian `basex`: the document loaded into a main-memory database, the query
 * once, then the average of its repeat runs, from its `-V` timings); Saxon-HE (Debian `libsaxonhe-java`,
 * 9.9, XQuery 3.1 without higher-order functions: tree built once, the median of its repeat runs
 * after the first, from `-t -repeat`). The peers' times are their own, taken inside the JVM: neither counts the
 * JVM's start. A peer or document that is missing is skipped with a notice. Each of the three
 * repeats a query 20 times by default: over 5, this engine's median fell among its first calls of
 * a shape, which run 2-3x its later ones (ADR 0055, addendum 2), where a held document in a
 * session meets it many times.
 *
 * "before" is this engine without libxml2 selecting paths (ADR 0055), run the same way.
 *
 *   npx tsx bench/xpath31-peers.ts [repeats=20] [case names, comma-separated] [cap seconds=300]
 *   apt-get install basex libsaxonhe-java ssg-debian libgirepository1.0-dev libreoffice-common unicode-cldr-core docbook5-xml shared-mime-info
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fontoxpathOrderEsbuild } from '../scripts/fontoxpath-patches.js';
import { bundle, ROOT } from './bundle.js';
import { withoutSelection } from './without-selection.js';

const repeats = Number(process.argv[2] ?? 20);
const only = process.argv[3]?.split(',');
/** A run of this engine without path selection (the baseline) past this is killed. */
const capSeconds = Number(process.argv[4] ?? 300);
const CACHE = join(ROOT, 'node_modules', '.cache', 'oxml-bench-peers');
mkdirSync(CACHE, { recursive: true });

const SAXON_JAR = '/usr/share/java/Saxon-HE.jar';
const XCCDF = 'http://checklists.nist.gov/xccdf/1.2';

interface Case {
  name: string;
  /** A file, or a generated document (written to CACHE so the peers read it too). */
  file: string;
  generate?: () => string;
  namespaces: Record<string, string>;
  query: string;
}

const CASES: Case[] = [
  {
    name: 'SCAP data stream: distinct selected @idref that match a Rule/@id',
    file: '/usr/share/xml/scap/ssg/content/ssg-debian10-ds.xml',
    namespaces: { x: XCCDF },
    query: 'count(distinct-values(//x:Profile/x:select/@idref[. = //x:Rule/@id]))',
  },
  {
    name: 'GObject introspection (Gio): top 3 classes by method count',
    file: '/usr/share/gir-1.0/Gio-2.0.gir',
    namespaces: { g: 'http://www.gtk.org/introspection/core/1.0' },
    query: "subsequence(reverse(sort(//g:class ! (string(10000 + count(g:method)) || ' ' || @name))), 1, 3)",
  },
  {
    name: 'LibreOffice registry: top 3 integer defaults of xs:int properties',
    file: '/usr/lib/libreoffice/share/registry/main.xcd',
    namespaces: { oor: 'http://openoffice.org/2001/registry' },
    query:
      "let $v := //prop[@oor:type = 'xs:int']/value[. castable as xs:integer] ! xs:integer(.) return subsequence(reverse(sort($v)), 1, 3)",
  },
  {
    name: 'CLDR supplemental data: population of the territories of regions that used EUR',
    file: '/usr/share/unicode/cldr/common/supplemental/supplementalData.xml',
    namespaces: {},
    query:
      "sum(//territoryInfo/territory[@type = //currencyData/region[currency/@iso4217 = 'EUR']/@iso3166]/@population ! number(.))",
  },
  {
    name: 'DocBook 5 RELAX NG: the most declared element name',
    file: '/usr/share/xml/docbook/schema/rng/5.0/docbook.rng',
    namespaces: { rng: 'http://relaxng.org/ns/structure/1.0' },
    query:
      'let $n := //rng:element/@name ! string(.), $d := distinct-values($n), $c := $d ! count(index-of($n, .)) return $d[index-of($c, max($c))[1]]',
  },
  {
    name: 'freedesktop MIME database: count(distinct-values(//@xml:lang))',
    file: '/usr/share/mime/packages/freedesktop.org.xml',
    namespaces: {},
    query: 'count(distinct-values(//@xml:lang))',
  },
  {
    name: 'generated: count(distinct-values(//@a)), 10^5 distinct',
    file: join(CACHE, 'distinct-100000.xml'),
    generate: () => `<r>${Array.from({ length: 100_000 }, (_, i) => `<e a="v${i}"/>`).join('')}</r>`,
    namespaces: {},
    query: 'count(distinct-values(//@a))',
  },
  {
    name: 'generated: grouping idiom, 50 keys × 10^5 records',
    file: join(CACHE, 'group-100000.xml'),
    generate: () =>
      `<d>${Array.from({ length: 100_000 }, (_, i) => `<r k="k${i % 50}" v="${i}"/>`).join('')}</d>`,
    namespaces: {},
    query: "string-join(for $k in distinct-values(//r/@k) return $k || ':' || count(//r[@k = $k]), ' ')",
  },
];

interface Timing {
  /** Load (parse) plus the first query. */
  first: number;
  repeat: number;
  answer: string;
}

const prolog = (namespaces: Record<string, string>) =>
  Object.entries(namespaces)
    .map(([prefix, uri]) => `declare namespace ${prefix} = "${uri}"; `)
    .join('');
/** The first items of an answer, as words, for comparing the three. */
const words = (text: string) =>
  text
    .replace(/<\?xml[^>]*\?>/, '')
    .trim()
    .split(/\s+/)
    .slice(0, 6)
    .join(' ');

const ours = {
  after: await bundle('bench/xpath31-shapes-run.ts', 'oxml-bench-peers/ours', true),
  before: await bundle('bench/xpath31-shapes-run.ts', 'oxml-bench-peers/before', [
    fontoxpathOrderEsbuild(),
    withoutSelection,
  ]),
};

function runOurs(item: Case, which: 'before' | 'after'): Timing | string {
  const bindings = Object.entries(item.namespaces).map(([prefix, uri]) => `${prefix}=${uri}`);
  const child = spawnSync(
    process.execPath,
    [ours[which], item.file, String(repeats), item.query, ...(bindings.length ? ['--ns', ...bindings] : [])],
    { encoding: 'utf8', timeout: capSeconds * 1000, maxBuffer: 1 << 20 },
  );
  if (child.status === null) return `> ${capSeconds} s`;
  if (child.status !== 0) return `failed: ${child.stderr.trim().split('\n').slice(-1)[0]}`;
  const run = JSON.parse(child.stdout.trim().split('\n').pop() as string) as {
    parse: number;
    results: Array<{ first: number; repeat: number; answer: string }>;
  };
  const result = run.results[0] as { first: number; repeat: number; answer: string };
  return {
    first: run.parse + result.first,
    repeat: result.repeat,
    answer: words(result.answer.replace(/^\S+ \d+: /, '')),
  };
}

function runBaseX(item: Case): Timing | string {
  const query = (prolog(item.namespaces) + item.query).replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const script = join(CACHE, 'peer.bxs');
  writeFileSync(
    script,
    `<commands><set option="mainmem">true</set><create-db name="oxmlbench">${item.file}</create-db><xquery>${query}</xquery><set option="runs">${repeats}</set><xquery>${query}</xquery><drop-db name="oxmlbench"/></commands>`,
  );
  const child = spawnSync('basex', ['-V', '-c', script], {
    encoding: 'utf8',
    timeout: 600_000,
    maxBuffer: 1 << 24,
  });
  if (child.status !== 0) return `failed: ${child.stderr.trim().split('\n').slice(-1)[0]}`;
  const out = child.stdout;
  const load = Number(/created in ([\d.]+) ms/.exec(out)?.[1]);
  const totals = [...out.matchAll(/Total Time: ([\d.]+) ms/g)].map((m) => Number(m[1]));
  const answer = /created in [\d.]+ ms\.\n([\s\S]*?)\nQuery:/.exec(out)?.[1] ?? '';
  return { first: load + (totals[0] ?? Number.NaN), repeat: totals[1] ?? Number.NaN, answer: words(answer) };
}

function runSaxon(item: Case): Timing | string {
  const child = spawnSync(
    'java',
    [
      '-cp',
      SAXON_JAR,
      'net.sf.saxon.Query',
      `-s:${item.file}`,
      `-qs:${prolog(item.namespaces)}${item.query}`,
      '-t',
      `-repeat:${repeats + 1}`,
    ],
    { encoding: 'utf8', timeout: 600_000, maxBuffer: 1 << 24 },
  );
  const out = `${child.stdout}\n${child.stderr}`;
  if (child.status !== 0)
    return `failed: ${/(XPST\d+|XPTY\d+|FO\w+\d+)[^\n]*/.exec(out)?.[0] ?? out.trim().split('\n').slice(-1)[0]}`;
  const tree = Number(/Tree built in ([\d.]+)ms/.exec(out)?.[1]);
  const runs = [...out.matchAll(/Execution time: ([\d.]+)ms/g)].map((m) => Number(m[1]));
  const later = runs.slice(1).sort((a, b) => a - b);
  const repeat = later.length ? (later[Math.floor(later.length / 2)] as number) : Number.NaN;
  const answer = child.stdout.split('<?xml')[1]?.replace(/^[^>]*>/, '') ?? '';
  return { first: tree + (runs[0] ?? Number.NaN), repeat, answer: words(answer) };
}

function available(command: string, args: string[]): boolean {
  return spawnSync(command, args, { encoding: 'utf8', timeout: 120_000 }).status === 0;
}
const peers = {
  basex: available('basex', ['-q', '1']),
  saxon: existsSync(SAXON_JAR) && available('java', ['-version']),
};
if (!peers.basex) console.error('notice: BaseX is missing (apt-get install basex): its columns are skipped');
if (!peers.saxon)
  console.error('notice: Saxon-HE is missing (apt-get install libsaxonhe-java): its columns are skipped');

const ms = (value: number) =>
  Number.isNaN(value) ? '–' : value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(1)} ms`;
const cell = (timing: Timing | string | null) =>
  timing === null
    ? 'skipped'
    : typeof timing === 'string'
      ? timing
      : `${ms(timing.first)} / ${ms(timing.repeat)}`;
const ratio = (a: Timing | string, b: Timing | string | null) =>
  typeof a === 'string' || b === null || typeof b === 'string' ? '–' : `${(a.repeat / b.repeat).toFixed(2)}×`;

console.log(
  '| case | bytes | before: first / repeat | this server: first / repeat | BaseX: first / repeat | Saxon-HE: first / repeat | **÷ BaseX** | ÷ Saxon | answers |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const item of CASES.filter((c) => !only || only.some((name) => c.name.includes(name)))) {
  if (item.generate && !existsSync(item.file)) writeFileSync(item.file, item.generate());
  if (!existsSync(item.file)) {
    console.error(
      `notice: ${item.file} is missing (its Debian package is not installed): "${item.name}" skipped`,
    );
    continue;
  }
  const before = runOurs(item, 'before');
  const mine = runOurs(item, 'after');
  const basex = peers.basex ? runBaseX(item) : null;
  const saxon = peers.saxon ? runSaxon(item) : null;
  const answers = [mine, basex, saxon]
    .filter((timing): timing is Timing => timing !== null && typeof timing !== 'string')
    .map((timing) => timing.answer);
  const agree = answers.every((answer) => answer === answers[0]) ? 'same' : answers.join(' \\| ');
  console.log(
    `| ${item.name} | ${statSync(item.file).size.toLocaleString('en')} | ${cell(before)} | ${cell(mine)} | ${cell(basex)} | ${cell(saxon)} | **${ratio(mine, basex)}** | ${ratio(mine, saxon)} | ${typeof mine === 'string' ? '' : `${agree} (${mine.answer.slice(0, 40)})`} |`,
  );
}
