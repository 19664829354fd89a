import type { XmlDocument } from 'libxml2-wasm';
import { EngineError } from '../errors.js';
import { type DocumentNames, documentNames, type NameUse } from '../libxml2/names.js';
import { documentPointer } from '../libxml2/tree.js';
import { XML_NAMESPACE } from '../marks.js';
import { fieldValuesHint } from './field-values-hint.js';
import { MAX_PADDED_VALUE_PROBES, type ProbeAllowance, paddedValueHint } from './padded-value-hint.js';
import type { QueryResult } from './result.js';
import { type Namespaces, unboundPrefix } from './xpath-guard.js';
import { tokenize, type XPathToken } from './xpath-tokens.js';

/** A query's answer with, when it came back empty for a reason the document shows, the sentence that says so. */
/**
 * An answer with the sentences that explain it: `hint`, why an empty one is empty (or a padded
 * value); `defaults`, how many of the attributes it read the DTD supplied (dtd-defaults-note.ts).
 */
export type ExplainedResult = QueryResult & { hint?: string; defaults?: string };

type NameTest = Extract<XPathToken, { kind: 'name-test' }>;

/**
 * A hint names at most this many namespaces and is at most this long: a hostile document may use
 * thousands of namespaces with megabyte URIs, and a hint past this is no help to anyone.
 */
const MAX_HINT_NAMESPACES = 8;
const MAX_HINT_CHARS = 8_000;

/**
 * Runs a query and explains what a model cannot see from its answer (docs/behaviour.md §2): an
 * empty answer whose names the document has in a namespace (the default namespace of an Atom
 * feed or a POM), a bound URI that differs from the document's only in case or a trailing
 * slash, an unbound prefix the document declares, a value compared with `=` that the
 * document has only with whitespace around it (padded-value-hint.ts), and otherwise what the
 * compared field does hold (field-values-hint.ts). The answer itself stays XPath 1.0's; the
 * document is walked only when the answer is empty or the prefix unbound, so a non-empty answer
 * costs nothing more.
 */
export function explainedQuery(
  doc: XmlDocument,
  expression: string,
  namespaces: Namespaces,
  run: () => QueryResult,
  names: NamesReader = namesOf(doc),
  probes: ProbeAllowance = { probes: MAX_PADDED_VALUE_PROBES },
): ExplainedResult {
  let result: QueryResult;
  try {
    result = run();
  } catch (error) {
    throw error instanceof EngineError && error.code === 'unbound-prefix'
      ? withDeclaredBinding(expression, namespaces, error, names)
      : error;
  }
  // The padded-value probes are XPath 1.0 expressions built from the query's operands.
  const later = result.xpath_version !== undefined;
  if (!isEmpty(result)) {
    if (later) return result;
    const left = paddedValueHint(doc, expression, namespaces, probes, true);
    return left === undefined ? result : { ...result, hint: left };
  }
  // A name in another namespace explains the answer before any value could; a padded value
  // before the field's other values. The field's values are read by an XPath 1.0 probe on its
  // name alone, so an XPath 3.1 expression gets them too.
  const named = emptyResultHint(doc, expression, namespaces, names);
  if (named !== undefined) return { ...result, hint: named };
  const padded = later ? undefined : paddedValueHint(doc, expression, namespaces, probes);
  const held = fieldValuesHint(doc, expression, namespaces, probes, padded !== undefined);
  const hint = [padded, held].filter((sentence) => sentence !== undefined).join(' ');
  return hint === '' ? result : { ...result, hint };
}

/** Reads the names an explanation needs from the document (one walk, `libxml2/names.ts`). */
export type NamesReader = (wanted: ReadonlySet<string>) => DocumentNames;

function namesOf(doc: XmlDocument): NamesReader {
  return (wanted) => documentNames(documentPointer(doc), wanted);
}

/**
 * One walk for a whole batch: the first entry that needs the document's names reads those of
 * every entry's expression at once, and the others reuse that reading, so 32 empty answers cost
 * one walk, not 32.
 */
export function batchNames(doc: XmlDocument, expressions: readonly string[]): NamesReader {
  let names: DocumentNames | undefined;
  return () => {
    names ??= documentNames(documentPointer(doc), new Set(expressions.flatMap(nameTestLocals)));
    return names;
  };
}

function nameTestLocals(expression: string): string[] {
  return tokenize(expression).flatMap((token) =>
    token.kind === 'name-test' && token.local !== '*' ? [token.local] : [],
  );
}

/** Nothing found, as each type says it: no node, a zero or NaN, the empty string, false. */
function isEmpty(result: QueryResult): boolean {
  const value = result.values[0];
  switch (result.type) {
    case 'node-set':
      return result.count === 0;
    case 'number':
      return value === '0' || value === 'NaN';
    case 'string':
      return value === '';
    case 'boolean':
      return value === 'false';
    case 'sequence':
      return result.count === 0;
    default:
      return false;
  }
}

/**
 * The name tests that match nothing although the document has their local name in another
 * namespace, each rewritten to the namespace it is in, and the binding to pass.
 */
export function emptyResultHint(
  doc: XmlDocument,
  expression: string,
  namespaces: Namespaces,
  read: NamesReader = namesOf(doc),
): string | undefined {
  const tests = tokenize(expression).filter(
    (token): token is NameTest => token.kind === 'name-test' && token.axis !== 'namespace',
  );
  const bound = (prefix: string | null) =>
    prefix === null ? null : prefix === 'xml' ? XML_NAMESPACE : (namespaces[prefix] ?? null);
  if (!tests.some((test) => test.local !== '*' || bound(test.prefix) !== null)) return undefined;
  const names = read(new Set(tests.map((test) => test.local).filter((local) => local !== '*')));
  const usesOf = new Map<string, NameUse[]>();
  for (const use of names.uses) {
    const key = `${use.kind} ${use.local}`;
    const same = usesOf.get(key);
    if (same) same.push(use);
    else usesOf.set(key, [use]);
  }
  const bindings: Namespaces = { ...namespaces };
  const sentences: string[] = [];
  const rewrites: Array<{ test: NameTest; written: string }> = [];

  const near = new Set<string>();
  for (const [prefix, uri] of Object.entries(namespaces)) {
    if (!tests.some((test) => test.prefix === prefix) || names.namespaces.has(uri)) continue;
    const meant = [...names.namespaces].find((candidate) => nearlyEqual(candidate, uri));
    if (meant === undefined) continue;
    sentences.push(
      `\`${prefix}\` is bound to ${uri}, but the document's namespace is ${meant}: namespace URIs match only exactly (case and trailing slash included).`,
    );
    bindings[prefix] = meant;
    near.add(prefix);
  }

  const misplaced = new Map<string, { asked: string | null; found: NameUse; locals: Set<string> }>();
  for (const test of tests) {
    if (test.local === '*') continue;
    const asked = bound(test.prefix);
    const uses = usesOf.get(`${test.axis} ${test.local}`) ?? [];
    if (uses.length === 0 || uses.some((use) => use.uri === asked)) continue;
    const found = uses.reduce((most, use) => (use.count > most.count ? use : most));
    const key = `${found.kind} ${asked ?? ''} ${found.uri ?? ''}`;
    if (!misplaced.has(key) && misplaced.size === MAX_HINT_NAMESPACES) continue;
    const prefix = found.uri === null ? null : prefixFor(found, bindings, test, names);
    if (prefix !== null) bindings[prefix] = found.uri as string;
    rewrites.push({ test, written: `${prefix === null ? '' : `${prefix}:`}${test.local}` });
    // A prefix bound to a near miss of the right URI is explained above.
    if (test.prefix !== null && test.prefix === prefix && near.has(test.prefix)) continue;
    const entry = misplaced.get(key) ?? { asked, found, locals: new Set() };
    entry.locals.add(test.local);
    misplaced.set(key, entry);
  }
  for (const { asked, found, locals } of misplaced.values()) {
    sentences.push(whereTheyAre(asked, found, [...locals]));
  }
  if (sentences.length === 0) return undefined;

  const rewritten = rewrite(expression, rewrites);
  const changed = Object.entries(bindings).some(([prefix, uri]) => namespaces[prefix] !== uri);
  const pass = changed ? `pass "namespaces": ${JSON.stringify(bindings)}` : '';
  const write = rewritten === expression ? '' : `write \`${rewritten}\``;
  const next = [pass, write].filter(Boolean).join(' and ');
  const hint = `${sentences.join(' ')}${next ? ` So ${next}.` : ''}`;
  return hint.length <= MAX_HINT_CHARS ? hint : undefined;
}

function whereTheyAre(asked: string | null, found: NameUse, locals: string[]): string {
  const listed = locals.slice(0, 5).map((local) => `\`${local}\``);
  const names = `${listed.join(', ')}${locals.length > 5 ? ', …' : ''} ${found.kind}s`;
  if (found.uri === null) return `The document's ${names} are in no namespace: write them without a prefix.`;
  if (asked !== null) return `The document's ${names} are in ${found.uri}, not ${asked}.`;
  const why =
    found.kind === 'element'
      ? ', and an unprefixed name in XPath 1.0 means no namespace, even under a default namespace'
      : '';
  return `The document has no ${names} in no namespace: they are in ${found.uri}${why}.`;
}

/**
 * The prefix to write a misplaced name with: the caller's own for that URI; the test's own
 * prefix when the caller bound it to a URI the document does not use; the document's prefix;
 * else one letter from the URI's last word (`a` for …/2005/Atom), never one bound elsewhere.
 */
function prefixFor(where: NameUse, bindings: Namespaces, test: NameTest, names: DocumentNames): string {
  const uri = where.uri as string;
  const taken = (prefix: string) => Object.hasOwn(bindings, prefix) && bindings[prefix] !== uri;
  const own = Object.entries(bindings).find(([, bound]) => bound === uri)?.[0];
  if (own !== undefined) return own;
  if (test.prefix !== null && test.prefix !== 'xml' && !names.namespaces.has(bindings[test.prefix] ?? '')) {
    return test.prefix;
  }
  const written = [where.prefix, ...names.declarations.filter((d) => d.uri === uri).map((d) => d.prefix)];
  const candidates = [...written, wordPrefix(uri)].filter(
    (prefix): prefix is string => prefix !== null && prefix !== 'xml' && !taken(prefix),
  );
  for (const prefix of candidates) return prefix;
  for (let n = 1; ; n++) if (!taken(`ns${n}`)) return `ns${n}`;
}

const GENERIC_WORDS = new Set([
  'http',
  'https',
  'www',
  'org',
  'com',
  'net',
  'urn',
  'xml',
  'xmlns',
  'ns',
  'schema',
  'schemas',
]);

function wordPrefix(uri: string): string | null {
  const words = uri
    .split(/[^A-Za-z]+/)
    .filter((word) => word !== '' && !GENERIC_WORDS.has(word.toLowerCase()));
  return words.at(-1)?.[0]?.toLowerCase() ?? null;
}

function nearlyEqual(a: string, b: string): boolean {
  const plain = (uri: string) => uri.toLowerCase().replace(/\/+$/, '');
  return a !== b && plain(a) === plain(b);
}

/** The expression with each misplaced name test written with its new prefix (or none). */
function rewrite(expression: string, rewrites: Array<{ test: NameTest; written: string }>): string {
  let text = expression;
  for (const { test, written } of [...rewrites].sort((a, b) => b.test.start - a.test.start)) {
    text = text.slice(0, test.start) + written + text.slice(test.end);
  }
  return text;
}

/**
 * The unbound-prefix error, with the binding itself when the document declares the prefix:
 * a prefix used only on attributes (`xsi:`, `xlink:`) must not send the model looking for it.
 */
function withDeclaredBinding(
  expression: string,
  namespaces: Namespaces,
  error: EngineError,
  read: NamesReader,
): EngineError {
  const prefix = unboundPrefix(expression, namespaces);
  if (prefix === undefined) return error;
  const uris = [
    ...new Set(
      read(new Set())
        .declarations.filter((declaration) => declaration.prefix === prefix)
        .map((declaration) => declaration.uri),
    ),
  ];
  if (uris.length === 0) return error;
  const bindings = { ...namespaces, [prefix]: uris[0] };
  const others = uris.slice(1, 4).join(', ') + (uris.length > 4 ? ', …' : '');
  const also = uris.length > 1 ? ` (it also declares it as ${others})` : '';
  const message = `Prefix \`${prefix}\` is not bound: the document declares it as ${uris[0]}${also}, so pass "namespaces": ${JSON.stringify(bindings)}.`;
  return message.length <= MAX_HINT_CHARS ? new EngineError({ code: 'unbound-prefix', message }) : error;
}
