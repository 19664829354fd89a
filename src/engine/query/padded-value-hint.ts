import type { XmlDocument } from 'libxml2-wasm';
import { MAX_XPATH_OPERATIONS } from '../../limits.js';
import { documentPointer } from '../libxml2/tree.js';
import { evaluateXPath, isXPathFailure, type XPathValue } from '../libxml2/xpath.js';
import type { Namespaces } from './xpath-guard.js';
import { tokenize, type XPathToken } from './xpath-tokens.js';

/**
 * Probes one call may spend on this hint, a batch's entries together: each is a pass over the
 * document (~0.1–0.3 s at 8 MiB on a busy machine), and an answer is never worth a time-out.
 */
export const MAX_PADDED_VALUE_PROBES = 4;
/**
 * XPath steps a probe may take after an answer that found something: enough for the documents a
 * model writes or pastes (tens of thousands of nodes), and a few milliseconds where it stops, so
 * a query that answers never pays a pass over a large document for a hint.
 */
const MAX_PROBE_OPERATIONS_BESIDE_AN_ANSWER = 200_000;
/** A longer literal is no value a model copied from an element; the probe would be no help. */
const MAX_LITERAL_LENGTH = 200;

/** What is left of a call's probes; a batch shares one. */
export interface ProbeAllowance {
  probes: number;
}

/**
 * `=` compares whole strings, so `//dependency[scope='test']` misses a dependency a POM writes
 * `<scope> test </scope>`, and nothing in the answer says so (a model spent two calls on it in a
 * trial). When an expression compares a one-step operand (`scope`, `@type`, `p:id`) with a string
 * literal, and the document has such elements or attributes whose value is the literal once
 * whitespace is normalised but not before, this says how many and rewrites the comparison with
 * `normalize-space()`: after an empty answer as its explanation, after one that found something
 * (`answered`) as what it left out, probing only as far as a small document goes. Only leaf
 * elements (and attributes) are probed. The answer
 * itself never changes (docs/adr/0031-explain-a-value-padded-with-whitespace.md).
 */
export function paddedValueHint(
  doc: XmlDocument,
  expression: string,
  namespaces: Namespaces,
  allowance: ProbeAllowance = { probes: MAX_PADDED_VALUE_PROBES },
  answered = false,
): string | undefined {
  const comparisons = oneStepComparisons(tokenize(expression), expression);
  const padded = new Map<string, number>();
  for (const { operand, literal } of comparisons) {
    const key = `${operand}=${literal}`;
    if (padded.has(key) || allowance.probes <= 0) continue;
    allowance.probes--;
    // Leaves only (`not(*)`; an attribute has no children): a value a model compares with `=` is
    // a field's, and the string-value of an element with elements inside repeats all their text,
    // 250 nested levels of an 8 MiB document making one probe take seconds (issue 24, M1). Each
    // leaf's text is read once, so a probe costs about one pass over the document's text.
    const probe = `//${operand}[not(*)][normalize-space(.)=${literal} and .!=${literal}]`;
    const opLimit = answered ? MAX_PROBE_OPERATIONS_BESIDE_AN_ANSWER : MAX_XPATH_OPERATIONS;
    padded.set(key, countOf(doc, probe, namespaces, opLimit) ?? 0);
  }
  const found = [...padded].filter(([, count]) => count > 0);
  if (found.length === 0) return undefined;
  const spans = comparisons.filter(({ operand, literal }) => (padded.get(`${operand}=${literal}`) ?? 0) > 0);
  let rewritten = expression;
  for (const { start, end } of spans.reverse()) {
    rewritten = `${rewritten.slice(0, start)}normalize-space(${rewritten.slice(start, end)})${rewritten.slice(end)}`;
  }
  const described = found.map(([key, count]) => {
    const [operand, literal] = splitKey(key);
    const one = count === 1;
    return `${count} \`${operand}\` value${one ? '' : 's'} that ${one ? 'is' : 'are'} ${literal} only with extra whitespace around or inside ${one ? 'it' : 'them'}`;
  });
  const why = '`=` compares strings exactly, whitespace included';
  const total = found.reduce((sum, [, count]) => sum + count, 0);
  return answered
    ? `Not counted above: ${described.join(', and ')}, because ${why}. To include ${total === 1 ? 'it' : 'them'}, write \`${rewritten}\`.`
    : `The document has ${described.join(', and ')}, and ${why}. So write \`${rewritten}\`.`;
}

interface Comparison {
  /** The operand as written: `scope`, `@type`, `p:id`. */
  operand: string;
  /** The literal as written, quotes included. */
  literal: string;
  start: number;
  end: number;
}

type Other = Extract<XPathToken, { kind: 'other' }>;

function isLiteral(token: XPathToken | undefined): token is Other {
  return token?.kind === 'other' && /^(['"]).*\1$/s.test(token.text);
}

/** Tokens before which a name test is a whole operand: the start of a predicate or a term. */
const OPERAND_START = new Set(['[', '(', 'and', 'or', ',']);

/**
 * Each `name = literal` and `@name = literal` whose operand is one step right after `[`, `(`,
 * `and`, `or` or `,`, and whose literal is a value as a model would copy it (non-empty, no
 * whitespace of its own to normalise). Longer operands (`a/b`, `.`, `text()`) are left alone.
 */
function oneStepComparisons(tokens: readonly XPathToken[], expression: string): Comparison[] {
  const comparisons: Comparison[] = [];
  tokens.forEach((token, i) => {
    const equals = tokens[i - 1];
    if (!isLiteral(token) || equals?.kind !== 'other' || equals.text !== '=') return;
    const value = token.text.slice(1, -1);
    if (value === '' || value.length > MAX_LITERAL_LENGTH || value !== value.replace(/\s+/g, ' ').trim())
      return;
    const test = tokens[i - 2];
    if (test?.kind !== 'name-test' || test.local === '*') return;
    const at = tokens[i - 3];
    const attribute = at?.kind === 'other' && at.text === '@';
    const before = attribute ? tokens[i - 4] : at;
    if (before?.kind !== 'other' || !OPERAND_START.has(before.text)) return;
    const start = attribute ? (at as Other).start : test.start;
    comparisons.push({
      operand: expression.slice(start, test.end),
      literal: token.text,
      start,
      end: test.end,
    });
  });
  return comparisons;
}

function splitKey(key: string): [string, string] {
  const at = key.indexOf('=');
  return [key.slice(0, at), key.slice(at + 1)];
}

/** The size of the node-set the probe selects; undefined when it fails or runs past its budget. */
function countOf(
  doc: XmlDocument,
  probe: string,
  namespaces: Namespaces,
  opLimit: number,
): number | undefined {
  const read = (value: XPathValue) => (value.type === 'node-set' ? value.size : undefined);
  const result = evaluateXPath(documentPointer(doc), probe, namespaces, opLimit, read);
  return isXPathFailure(result) ? undefined : result;
}
