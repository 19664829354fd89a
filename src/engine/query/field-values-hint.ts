import type { XmlDocument } from 'libxml2-wasm';
import { MAX_PROFILE_VALUE_CHARS, MAX_XPATH_OPERATIONS } from '../../limits.js';
import { writtenValue } from '../inspect/profile-text.js';
import { documentPointer, stringValue } from '../libxml2/tree.js';
import { evaluateXPath, isXPathFailure, type XPathValue } from '../libxml2/xpath.js';
import { visibleJson } from '../visible-json.js';
import type { ProbeAllowance } from './padded-value-hint.js';
import type { Namespaces } from './xpath-guard.js';
import { tokenize, type XPathToken } from './xpath-tokens.js';

/**
 * After an empty answer, what the field compared with a string holds: `iso639Id = "ger"` found
 * nothing because the document writes German `deu`, `@type = "province"` because it writes
 * `Province`. A model otherwise spends a call listing the values (two trials did). One probe per
 * field, `//name[not(*)]` or `//@name`, read as far as MAX_VALUES_READ nodes; the answer itself
 * never changes (docs/adr/0044-say-what-a-compared-field-holds.md).
 */

/** Nodes whose values are read: a pass over a large document's leaves stops here. */
const MAX_VALUES_READ = 10_000;
/** Distinct values tallied; past it only the count of values goes on. */
const MAX_TALLIED = 256;
/** Values named in the sentence, most frequent first. */
const MAX_SHOWN = 10;
/** Fields looked at in one expression. */
const MAX_FIELDS = 2;
/** A literal longer than this is not a value a model copied; no probe. */
const MAX_LITERAL_CHARS = 200;

/** Functions a comparison may wrap its field in (`normalize-space(scope) = "test"`). */
const TRANSPARENT_FUNCTIONS = new Set([
  'normalize-space',
  'lower-case',
  'upper-case',
  'string',
  'text',
  'data',
]);

interface ComparedField {
  /** As written, `@` included: `iso639Id`, `@type`, `m:scope`. */
  field: string;
  attribute: boolean;
  value: string;
}

/**
 * `paddedSaid`: the padded-value hint has already spoken of values that are the literal once
 * white space is normalised; only the other spellings (case) are then added.
 */
export function fieldValuesHint(
  doc: XmlDocument,
  expression: string,
  namespaces: Namespaces,
  allowance: ProbeAllowance,
  paddedSaid = false,
): string | undefined {
  const sentences: string[] = [];
  for (const compared of comparedFields(expression)) {
    if (allowance.probes <= 0) break;
    allowance.probes--;
    const tally = valuesOf(doc, compared, namespaces);
    const sentence = tally && describe(compared, tally, paddedSaid);
    if (sentence) sentences.push(sentence);
  }
  return sentences.length > 0 ? sentences.join(' ') : undefined;
}

/**
 * Each `FIELD = "literal"` where FIELD is the name test just before the `=`, through a
 * predicate's `[`, `.` or a function that keeps the value (`iso639Id[normalize-space() = "ger"]`,
 * `configItem/name = "us"`, `@type = "E"`); the first MAX_FIELDS distinct fields.
 */
function comparedFields(expression: string): ComparedField[] {
  const tokens = tokenize(expression);
  const found = new Map<string, ComparedField>();
  tokens.forEach((token, i) => {
    const equals = tokens[i - 1];
    if (!isLiteral(token) || equals?.kind !== 'other' || equals.text !== '=') return;
    const value = token.text.slice(1, -1);
    if (value === '' || value.length > MAX_LITERAL_CHARS) return;
    const test = nameTestBefore(tokens, i - 2);
    if (!test) return;
    const attribute = test.axis === 'attribute';
    const field = `${attribute ? '@' : ''}${test.prefix ? `${test.prefix}:` : ''}${test.local}`;
    if (!found.has(field) && found.size < MAX_FIELDS) found.set(field, { field, attribute, value });
  });
  return [...found.values()];
}

function nameTestBefore(
  tokens: readonly XPathToken[],
  from: number,
): Extract<XPathToken, { kind: 'name-test' }> | undefined {
  for (let j = from; j >= 0 && j > from - 8; j--) {
    const token = tokens[j];
    if (token?.kind === 'name-test') return token.local === '*' ? undefined : token;
    if (token?.kind === 'function' && TRANSPARENT_FUNCTIONS.has(token.name)) continue;
    if (token?.kind === 'other' && ['(', ')', '[', '.', '@'].includes(token.text)) continue;
    return undefined;
  }
  return undefined;
}

function isLiteral(token: XPathToken | undefined): token is Extract<XPathToken, { kind: 'other' }> {
  return token?.kind === 'other' && /^(['"]).*\1$/s.test(token.text);
}

interface Tally {
  counts: Map<string, number>;
  /** Values read, kept or not. */
  read: number;
  /** Nodes the probe selected: more than `read` when reading stopped at MAX_VALUES_READ. */
  selected: number;
  /** Whether values past MAX_TALLIED distinct went uncounted as distinct. */
  overflowed: boolean;
}

function valuesOf(doc: XmlDocument, compared: ComparedField, namespaces: Namespaces): Tally | undefined {
  // Leaves only, as the padded-value probe (ADR 0035): a field's value, each leaf's text read once.
  const probe = compared.attribute ? `//${compared.field}` : `//${compared.field}[not(*)]`;
  const read = (value: XPathValue): Tally | undefined => {
    if (value.type !== 'node-set' || value.size === 0) return undefined;
    const counts = new Map<string, number>();
    let overflowed = false;
    const reading = Math.min(value.size, MAX_VALUES_READ);
    for (let i = 0; i < reading; i++) {
      const text = stringValue(value.node(i));
      const known = counts.get(text);
      if (known !== undefined) counts.set(text, known + 1);
      else if (counts.size < MAX_TALLIED) counts.set(text, 1);
      else overflowed = true;
    }
    return { counts, read: reading, selected: value.size, overflowed };
  };
  const result = evaluateXPath(documentPointer(doc), probe, namespaces, MAX_XPATH_OPERATIONS, read);
  return isXPathFailure(result) ? undefined : result;
}

function describe(compared: ComparedField, tally: Tally, paddedSaid: boolean): string | undefined {
  const { field, value } = compared;
  // The field has the value: the answer is empty for another reason, which this cannot name.
  if (tally.counts.has(value)) return undefined;
  const folded = fold(value);
  const spaced = (text: string) => text.replace(/[ \t\r\n]+/g, ' ').trim() === value;
  const variants = [...tally.counts].filter(
    ([text]) => fold(text) === folded && !(paddedSaid && spaced(text)),
  );
  const name = `\`${field}\``;
  if (paddedSaid && variants.length === 0) return undefined;
  if (variants.length > 0) {
    const listed = variants.map(([text, count]) => `${shown(text)}×${count}`).join(' ');
    return `No ${name} is ${visibleJson(value)}, but the document has ${listed}: \`=\` compares case and white space too.`;
  }
  const ranked = [...tally.counts].sort((a, b) => b[1] - a[1]);
  const listed = ranked
    .slice(0, MAX_SHOWN)
    .map(([text, count]) => `${shown(text)}×${count}`)
    .join(' ');
  const more = ranked.length > MAX_SHOWN ? ` …+${ranked.length - MAX_SHOWN} more` : '';
  const distinct = `${tally.overflowed ? 'over ' : ''}${tally.counts.size} distinct`;
  const of =
    tally.read < tally.selected ? `of the first ${tally.read} of ${tally.selected}` : `of ${tally.read}`;
  return `No ${name} is ${visibleJson(value)}. What ${name} holds (${distinct} ${of}), most frequent first: ${listed}${more}.`;
}

/** The value as `lower-case(normalize-space())` would see it, for names in ASCII and beyond. */
function fold(text: string): string {
  return text
    .replace(/[ \t\r\n]+/g, ' ')
    .trim()
    .toLowerCase();
}

/** In the outline's notation (profile-text.ts), cut as the outline cuts. */
function shown(text: string): string {
  const chars = Array.from(text);
  const cut = chars.length > MAX_PROFILE_VALUE_CHARS;
  return writtenValue(cut ? chars.slice(0, MAX_PROFILE_VALUE_CHARS).join('') : text, cut);
}
