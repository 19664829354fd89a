import type { XmlDocument } from 'libxml2-wasm';
import { DEFAULT_OUTPUT_CHARS, MAX_OUTPUT_VALUES, MAX_XPATH_OPERATIONS } from '../limits.js';
import { EngineError } from './errors.js';
import { type DocumentRef, documentPointer, stringValue } from './libxml2/tree.js';
import { evaluateXPath, isXPathFailure, type XPathFailure, type XPathValue } from './libxml2/xpath.js';
import { parseDocument, type XmlSource } from './parse.js';
import { guardExpression, type Namespaces } from './xpath-guard.js';
import { xpathNumberToString } from './xpath-number.js';

export interface QueryResult {
  type: 'node-set' | 'number' | 'string' | 'boolean';
  /** Nodes in a node-set; 1 for a scalar. */
  count: number;
  /** String-values in document order, or the one scalar value. */
  values: string[];
  /** Present when the output budget cut `values`: the count stays exact. */
  truncated?: true;
}

export interface OutputBudget {
  maxChars: number;
  maxValues: number;
}

const DEFAULT_BUDGET: OutputBudget = { maxChars: DEFAULT_OUTPUT_CHARS, maxValues: MAX_OUTPUT_VALUES };

/** Evaluates an XPath 1.0 expression with the document node as context node. */
export function query(
  xml: XmlSource,
  expression: string,
  namespaces: Namespaces = {},
  budget: OutputBudget = DEFAULT_BUDGET,
): QueryResult {
  guardExpression(expression, namespaces);
  const doc = parseDocument(xml, 'query');
  try {
    return queryDocument(doc, expression, namespaces, budget);
  } finally {
    doc.dispose();
  }
}

/** `query` on a document parsed for querying (`parseDocument(xml, 'query')`), which stays the caller's. */
export function queryDocument(
  doc: XmlDocument,
  expression: string,
  namespaces: Namespaces = {},
  budget: OutputBudget = DEFAULT_BUDGET,
): QueryResult {
  guardExpression(expression, namespaces);
  const docPtr = documentPointer(doc);
  return stringOfNumber(docPtr, expression, namespaces) ?? evaluate(docPtr, expression, namespaces, budget);
}

/**
 * libxml2 turns numbers into strings with 15 significant digits and an exponent past 1e9 or
 * below 1e-5 (`string(12345678901)` is `1.2345678901e+10`), against XPath 1.0 §4.2. Inside an
 * expression that cannot be changed from here; for the common whole-expression form
 * `string(EXPR)` whose argument is a number, the number is formatted by the recommendation.
 */
function stringOfNumber(
  docPtr: DocumentRef,
  expression: string,
  namespaces: Namespaces,
): QueryResult | undefined {
  const inner = soleArgumentOf('string', expression);
  if (inner === undefined) return undefined;
  const value = evaluate(docPtr, inner, namespaces);
  return value.type === 'number' ? { type: 'string', count: 1, values: value.values } : undefined;
}

/** `ARG` when the whole expression is `name(ARG)`, else undefined. */
function soleArgumentOf(name: string, expression: string): string | undefined {
  const trimmed = expression.trim();
  const open = new RegExp(`^${name}\\s*\\(`).exec(trimmed);
  if (!open || !trimmed.endsWith(')')) return undefined;
  let depth = 0;
  let quote: string | null = null;
  for (let i = open[0].length - 1; i < trimmed.length; i++) {
    const char = trimmed[i] as string;
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) {
      if (i !== trimmed.length - 1) return undefined;
      const inner = trimmed.slice(open[0].length, i);
      return inner.trim() === '' || /^[^(]*,/.test(inner) ? undefined : inner;
    }
  }
  return undefined;
}

/** Evaluates on an already parsed document; the caller guards the expression and owns the document. */
export function evaluate(
  doc: DocumentRef,
  expression: string,
  namespaces: Namespaces,
  budget: OutputBudget = DEFAULT_BUDGET,
): QueryResult {
  const result = evaluateXPath(doc, expression, namespaces, MAX_XPATH_OPERATIONS, (value) =>
    readResult(value, budget),
  );
  if (isXPathFailure(result)) throw failureError(expression, result);
  return result;
}

function readResult(value: XPathValue, budget: OutputBudget): QueryResult {
  switch (value.type) {
    case 'node-set':
      return {
        type: 'node-set',
        count: value.size,
        ...withinBudget(value.size, (i) => stringValue(value.node(i)), budget),
      };
    case 'boolean':
      return { type: 'boolean', count: 1, values: [value.value ? 'true' : 'false'] };
    case 'number':
      return { type: 'number', count: 1, values: [xpathNumberToString(value.value)] };
    case 'string':
      return { type: 'string', count: 1, ...withinBudget(1, () => value.value, budget) };
    default:
      throw new EngineError({
        code: 'xpath-failed',
        message: 'The expression produced a value XPath 1.0 does not define.',
      });
  }
}

/**
 * Reads values until the budget is spent; values past it are never even read from libxml2,
 * which keeps a `//record` on an 8 MiB document cheap. The value that crosses the character
 * budget is cut at it.
 */
function withinBudget(
  size: number,
  valueAt: (index: number) => string,
  budget: OutputBudget,
): Pick<QueryResult, 'values' | 'truncated'> {
  const values: string[] = [];
  let chars = 0;
  for (let i = 0; i < size; i++) {
    const remaining = budget.maxChars - chars;
    if (values.length >= budget.maxValues || remaining <= 0) return { values, truncated: true };
    const value = valueAt(i);
    if (value.length > remaining) {
      values.push(cutAt(value, remaining));
      return { values, truncated: true };
    }
    values.push(value);
    chars += value.length;
  }
  return { values };
}

/** The first `length` UTF-16 units, one fewer if the cut would split a surrogate pair. */
function cutAt(value: string, length: number): string {
  const code = value.charCodeAt(length - 1);
  return value.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

function failureError(expression: string, failure: XPathFailure): EngineError {
  return failure.failed === 'compile'
    ? compileError(expression, failure)
    : evaluationError(expression, failure);
}

function compileError(expression: string, { reason, position }: XPathFailure): EngineError {
  const at = characterPosition(expression, position);
  const where = at === undefined ? '' : ` at character ${at + 1}`;
  const pointer = at === undefined ? '' : `\n  ${expression}\n  ${' '.repeat(at)}^`;
  return new EngineError({
    code: 'invalid-xpath',
    message: `The \`xpath\` argument is not a valid XPath 1.0 expression${where}: ${reason}.${pointer}`,
    ...(at === undefined ? {} : { column: at + 1 }),
  });
}

function evaluationError(expression: string, { reason }: XPathFailure): EngineError {
  if (/operation limit/i.test(reason)) {
    return new EngineError({
      code: 'budget-exceeded',
      message: `The expression \`${expression}\` ran past the operation budget of ${MAX_XPATH_OPERATIONS} XPath steps and was stopped. Narrow it: a more specific path instead of \`//\`, fewer nested predicates over the whole document, or count(...) instead of listing.`,
    });
  }
  return new EngineError({
    code: 'xpath-failed',
    message: `The expression \`${expression}\` could not be evaluated: ${reason}. Check function names and argument types (XPath 1.0).`,
  });
}

/** libxml2 reports a byte offset into the UTF-8 expression; the model counts characters. */
function characterPosition(expression: string, byteOffset: number | undefined): number | undefined {
  if (byteOffset === undefined || byteOffset < 0) return undefined;
  const bytes = new TextEncoder().encode(expression);
  if (byteOffset > bytes.length) return undefined;
  return new TextDecoder().decode(bytes.subarray(0, byteOffset)).length;
}
