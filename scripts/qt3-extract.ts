/**
 * Writes test/fixtures/qt3/cases.json: the cases of the W3C QT3 test suite (github.com/w3c/qt3tests)
 * that test/engine/query/qt3.test.ts runs through evaluateXPath31. Run by hand, not in CI:
 *
 *   npx tsx scripts/qt3-extract.ts <qt3tests git dir or work tree> [--out test/fixtures/qt3/cases.json]
 *
 * The suite is read with `git show <rev>:<path>` when the directory is a git repository (a bare
 * mirror is enough), else from the files. A case is kept only when it applies to XPath 3.1 (its
 * `spec` dependencies, of the case and of its test set, allow XP31), every other dependency is
 * one the engine meets, its environment is at most a context document (inline, or a small
 * unvalidated file of the suite) and in-scope namespaces, and its expected result can be judged
 * from evaluateXPath31's items (assert-xml and serialization assertions cannot). What is dropped
 * is counted by reason on stdout and in the fixture's `skipped`. See docs/w3c-conformance.md.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { parseArgs } from 'node:util';
import { XmlDocument, type XmlElement, type XmlNode } from 'libxml2-wasm';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: 'string', default: 'test/fixtures/qt3/cases.json' },
    rev: { type: 'string', default: 'HEAD' },
  },
});
const root = positionals[0];
if (root === undefined) {
  console.error('usage: npx tsx scripts/qt3-extract.ts <qt3tests git dir or work tree> [--out file]');
  process.exit(2);
}

/** The test sets run: the functions and expressions a model writes when it analyses data. */
const TEST_SETS = [
  // strings
  'fn-lower-case',
  'fn-upper-case',
  'fn-matches',
  'fn-replace',
  'fn-tokenize',
  'fn-string-join',
  'fn-substring',
  'fn-substring-before',
  'fn-substring-after',
  'fn-contains',
  'fn-starts-with',
  'fn-ends-with',
  'fn-normalize-space',
  'fn-concat',
  'fn-translate',
  'fn-string-length',
  'fn-string',
  // aggregates
  'fn-count',
  'fn-sum',
  'fn-avg',
  'fn-min',
  'fn-max',
  // sequences
  'fn-distinct-values',
  'fn-reverse',
  'fn-subsequence',
  'fn-index-of',
  'fn-exists',
  'fn-empty',
  'fn-head',
  'fn-tail',
  'fn-sort',
  // dates and durations
  'fn-year-from-date',
  'fn-year-from-dateTime',
  'fn-month-from-date',
  'fn-month-from-dateTime',
  'fn-day-from-date',
  'fn-day-from-dateTime',
  'fn-hours-from-dateTime',
  'fn-days-from-duration',
  'op-subtract-dates',
  'op-subtract-dateTimes',
  // numbers
  'fn-round',
  'fn-floor',
  'fn-ceiling',
  'fn-abs',
  'fn-number',
  'fn-format-number',
  'op-numeric-divide',
  'op-numeric-integer-divide',
  'op-numeric-mod',
  // expressions
  'op-bang',
  'prod-IfExpr',
  'prod-ForClause',
  'prod-LetClause',
  'prod-QuantifiedExpr',
];

/** Largest suite file taken as a context document (the suite's small data files are 0.4-6 KB). */
const MAX_DOCUMENT_BYTES = 8 * 1024;

const Q = { q: 'http://www.w3.org/2010/09/qt-fots-catalog' };
const isGit = existsSync(join(root, 'HEAD')) || existsSync(join(root, '.git'));
const rev = values.rev;
const commit = isGit ? git(['rev-parse', rev]).toString().trim() : undefined;

function git(args: string[]): Buffer {
  const dir = existsSync(join(root as string, '.git')) ? join(root as string, '.git') : (root as string);
  return execFileSync('git', ['--git-dir', dir, ...args], { maxBuffer: 1 << 28 });
}

function readSuite(path: string): Buffer {
  return isGit ? git(['show', `${rev}:${path}`]) : readFileSync(join(root as string, path));
}

function attr(element: XmlNode, name: string): string | undefined {
  return (element as XmlElement).attr(name)?.value;
}

function children(element: XmlNode, name = '*'): XmlElement[] {
  return element.find(`q:${name}`, Q) as XmlElement[];
}

// ---------------------------------------------------------------------------------------------
// The fixture's shape (test/engine/query/qt3.test.ts reads the same).

type Assertion =
  | { 'assert-eq': string }
  | { 'assert-deep-eq': string }
  | { 'assert-permutation': string }
  | { 'assert-string-value': string; normalizeSpace?: true }
  | { 'assert-true': true }
  | { 'assert-false': true }
  | { 'assert-empty': true }
  | { 'assert-count': number }
  | { 'assert-type': string }
  | { assert: string }
  | { error: string }
  | { 'any-of': Assertion[] }
  | { 'all-of': Assertion[] }
  | { not: Assertion };

interface Case {
  set: string;
  name: string;
  expression: string;
  /** Prefixes the environment declares (the default element namespace, "", is not supported). */
  namespaces?: Record<string, string>;
  /** Key in `documents` of the context document; none: the case has no context item. */
  document?: string;
  result: Assertion;
}

// ---------------------------------------------------------------------------------------------
// Dependencies.

/** Spec tokens under which a case applies to XPath 3.1. */
const XP31 = new Set(['XP20+', 'XP30+', 'XP31+', 'XP31']);

/** Features evaluateXPath31 has; any other feature a case requires is not met. */
const FEATURES_MET = new Set(['higherOrderFunctions']);

function unmetDependency(dependency: XmlNode): string | undefined {
  const type = attr(dependency, 'type') ?? '';
  const value = attr(dependency, 'value') ?? '';
  const wanted = attr(dependency, 'satisfied') !== 'false';
  let met: boolean;
  switch (type) {
    case 'spec':
      return value.split(/\s+/).some((token) => XP31.has(token)) ? undefined : 'not-xpath31';
    case 'feature':
      met = FEATURES_MET.has(value);
      break;
    case 'xml-version':
      // libxml2 is an XML 1.0 5th edition parser.
      met = value.split(/\s+/).some((token) => token === '1.0' || token === '1.0:5+');
      break;
    case 'xsd-version':
      // XPath 3.1 with XSD 1.1 datatypes (year 0, xs:dateTimeStamp), as fontoxpath has them.
      met = value === '1.1';
      break;
    default:
      met = false;
  }
  return met === wanted ? undefined : `dependency ${type}=${value}${wanted ? '' : ' (absent)'}`;
}

// ---------------------------------------------------------------------------------------------
// Environments.

interface Environment {
  namespaces: Record<string, string>;
  /** Suite path or inline key of the context document. */
  document?: string;
}

const documents: Record<string, string> = {};

/** The environment as a case can use it, or why not. */
function readEnvironment(element: XmlElement, base: string): Environment | { skip: string } {
  const environment: Environment = { namespaces: {} };
  for (const child of children(element)) {
    switch (child.name) {
      case 'description':
      case 'created':
      case 'modified':
        break;
      case 'namespace': {
        const prefix = attr(child, 'prefix') ?? '';
        if (prefix === '') return { skip: 'environment: default element namespace' };
        environment.namespaces[prefix] = attr(child, 'uri') ?? '';
        break;
      }
      case 'source': {
        if (attr(child, 'role') !== '.') return { skip: 'environment: a document bound to a variable' };
        if (attr(child, 'validation') !== undefined && attr(child, 'validation') !== 'skip') {
          return { skip: 'environment: schema-validated document' };
        }
        const content = children(child, 'content')[0];
        if (content !== undefined) {
          const key = `${base}#${attr(element, 'name') ?? 'inline'}`;
          documents[key] = content.content;
          environment.document = key;
          break;
        }
        const file = attr(child, 'file');
        if (file === undefined) return { skip: 'environment: document without file or content' };
        const path = posix.normalize(posix.join(posix.dirname(base), file));
        const bytes = readSuite(path);
        if (bytes.length > MAX_DOCUMENT_BYTES) return { skip: 'environment: document over 8 KB' };
        documents[path] = bytes.toString('utf8');
        environment.document = path;
        break;
      }
      default:
        // schema, param, collation, static-base-uri, decimal-format, resource, collection, context-item
        return { skip: `environment: ${child.name}` };
    }
  }
  return environment;
}

const catalog = XmlDocument.fromBuffer(readSuite('catalog.xml'));
const catalogEnvironments = new Map<string, XmlElement>();
for (const element of children(catalog.root, 'environment')) {
  catalogEnvironments.set(attr(element, 'name') ?? '', element);
}

// ---------------------------------------------------------------------------------------------
// Expected results.

const UNSUPPORTED = new Set(['assert-xml', 'serialization-matches', 'assert-serialization-error']);

/** The assertion, undefined when it cannot be judged from evaluateXPath31's items. */
function readAssertion(element: XmlElement): Assertion | undefined {
  const text = element.content;
  switch (element.name) {
    case 'assert-eq':
    case 'assert-deep-eq':
    case 'assert-permutation':
    case 'assert-type':
    case 'assert':
      return { [element.name]: text } as Assertion;
    case 'assert-string-value':
      return attr(element, 'normalize-space') === 'true'
        ? { 'assert-string-value': text, normalizeSpace: true }
        : { 'assert-string-value': text };
    case 'assert-true':
    case 'assert-false':
    case 'assert-empty':
      return { [element.name]: true } as Assertion;
    case 'assert-count':
      return { 'assert-count': Number(text.trim()) };
    case 'error':
      return { error: attr(element, 'code') ?? '*' };
    case 'any-of': {
      // An alternative that cannot be judged is dropped: the case only gets stricter.
      const alternatives = children(element)
        .map(readAssertion)
        .filter((a) => a !== undefined);
      return alternatives.length === 0 ? undefined : { 'any-of': alternatives };
    }
    case 'all-of': {
      const all = children(element).map(readAssertion);
      return all.some((a) => a === undefined) ? undefined : { 'all-of': all as Assertion[] };
    }
    case 'not': {
      const [inner] = children(element).map(readAssertion);
      return inner === undefined ? undefined : { not: inner };
    }
    default:
      if (!UNSUPPORTED.has(element.name)) throw new Error(`unknown assertion ${element.name}`);
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------

const cases: Case[] = [];
const skipped: Record<string, number> = {};
const perSet: Record<string, { cases: number; kept: number }> = {};
const skip = (reason: string) => {
  skipped[reason] = (skipped[reason] ?? 0) + 1;
};

for (const entry of children(catalog.root, 'test-set')) {
  const setName = attr(entry, 'name') as string;
  if (!TEST_SETS.includes(setName)) continue;
  const file = attr(entry, 'file') as string;
  const set = XmlDocument.fromBuffer(readSuite(file));
  const setEnvironments = new Map<string, XmlElement>();
  for (const element of children(set.root, 'environment')) {
    setEnvironments.set(attr(element, 'name') ?? '', element);
  }
  const setDependencies = children(set.root, 'dependency');
  const counts = { cases: 0, kept: 0 };
  perSet[setName] = counts;

  for (const testCase of children(set.root, 'test-case')) {
    counts.cases++;
    const name = attr(testCase, 'name') as string;
    const dependencies = [...setDependencies, ...children(testCase, 'dependency')];
    const unmet = dependencies.map(unmetDependency).find((reason) => reason !== undefined);
    if (unmet !== undefined) {
      skip(unmet);
      continue;
    }
    if (children(testCase, 'module').length > 0) {
      skip('XQuery module');
      continue;
    }

    let environment: Environment = { namespaces: {} };
    const [environmentElement] = children(testCase, 'environment');
    if (environmentElement !== undefined) {
      const ref = attr(environmentElement, 'ref');
      const definition =
        ref === undefined ? environmentElement : (setEnvironments.get(ref) ?? catalogEnvironments.get(ref));
      if (definition === undefined) throw new Error(`${name}: unknown environment ${ref}`);
      const base = setEnvironments.has(ref ?? '') || ref === undefined ? file : 'catalog.xml';
      const read = readEnvironment(definition, ref === undefined ? `${file}#${name}` : base);
      if ('skip' in read) {
        skip(read.skip);
        continue;
      }
      environment = read;
    }

    const [test] = children(testCase, 'test');
    if (test === undefined) throw new Error(`${name}: no test`);
    const testFile = attr(test, 'file');
    const expression =
      testFile === undefined
        ? test.content
        : readSuite(posix.join(posix.dirname(file), testFile)).toString('utf8');

    const [resultElement] = children(testCase, 'result');
    const [assertionElement] = resultElement === undefined ? [] : children(resultElement);
    const result = assertionElement === undefined ? undefined : readAssertion(assertionElement);
    if (result === undefined) {
      skip('result: assert-xml or serialization');
      continue;
    }

    // Keys in this order: set, name, expression, namespaces, document, result.
    const kept: Case = {
      set: setName,
      name,
      expression,
      ...(Object.keys(environment.namespaces).length > 0 ? { namespaces: environment.namespaces } : {}),
      ...(environment.document !== undefined ? { document: environment.document } : {}),
      result,
    };
    cases.push(kept);
    counts.kept++;
  }
  set.dispose();
}
catalog.dispose();

// Only the documents a kept case uses.
const used = new Set(cases.map((c) => c.document).filter((d) => d !== undefined));
const keptDocuments = Object.fromEntries(Object.entries(documents).filter(([key]) => used.has(key)));

const fixture = {
  about:
    'Cases of the W3C QT3 test suite (https://github.com/w3c/qt3tests), extracted by scripts/qt3-extract.ts; see README.md here for the licence.',
  source: { repository: 'https://github.com/w3c/qt3tests', commit },
  sets: perSet,
  skipped: Object.fromEntries(Object.entries(skipped).sort(([a], [b]) => a.localeCompare(b))),
  documents: keptDocuments,
  cases,
};
const out = values.out;
if (!existsSync(dirname(out))) throw new Error(`no directory ${dirname(out)}`);
writeFileSync(out, `${JSON.stringify(fixture, null, 2)}\n`);
// In the layout `npx biome check --write .` gives it, so the lint step leaves the fixture alone.
execFileSync('npx', ['biome', 'format', '--write', out], { stdio: ['ignore', 'ignore', 'inherit'] });
const total = Object.values(perSet).reduce((n, s) => n + s.cases, 0);
console.log(
  `${cases.length} of ${total} cases kept, ${Object.keys(keptDocuments).length} documents -> ${out}`,
);
for (const [reason, n] of Object.entries(fixture.skipped)) console.log(`  skipped ${n}: ${reason}`);
