import type { XmlDocument } from 'libxml2-wasm';
import {
  DEFAULT_OUTPUT_CHARS,
  MAX_BATCH_XPATH_OPERATIONS,
  MAX_OUTPUT_VALUES,
  MAX_XPATH_OPERATIONS,
} from '../../limits.js';
import { EngineError, type EngineErrorCode } from '../errors.js';
import { type DocumentRef, documentPointer, stringValue } from '../libxml2/tree.js';
import { decodeUtf8 } from '../libxml2/utf8.js';
import {
  compileFailure,
  evaluateXPath,
  isXPathFailure,
  type XPathCost,
  type XPathFailure,
  type XPathValue,
} from '../libxml2/xpath.js';
import type { Xpath31View } from '../libxml2/xpath31-view.js';
import { CUT_MARK } from '../marks.js';
import { withDocument, type XmlSource } from '../parse.js';
import { shownCost } from '../shown-cost.js';
import { batchNames, type ExplainedResult, explainedQuery } from './namespace-hints.js';
import { PathWriter } from './node-path.js';
import { MAX_PADDED_VALUE_PROBES, type ProbeAllowance } from './padded-value-hint.js';
import type { OutputBudget, QueryOutput, QueryResult } from './result.js';
import { markupWithinBudget, pathsWithinBudget, withinBudget } from './within-budget.js';
import { checkBindings, guardExpression, type Namespaces } from './xpath-guard.js';
import { xpathNumberToString } from './xpath-number.js';
import { tokenize } from './xpath-tokens.js';
import { answerXPath31, looksLikeXPath31, mayBeXPath31, xpath31Error, xpath31View } from './xpath31.js';

export type { OutputBudget, QueryOutput, QueryResult } from './result.js';

export { CUT_MARK };

/**
 * One expression of a batch: its answer (with the sentence that explains an empty one), or the
 * sentence saying why it has none and the error's code.
 */
export type BatchEntry = { xpath: string } & (ExplainedResult | { error: string; code: EngineErrorCode });

const DEFAULT_BUDGET: OutputBudget = { maxChars: DEFAULT_OUTPUT_CHARS, maxValues: MAX_OUTPUT_VALUES };

/** Evaluates an XPath 1.0 expression with the document node as context node. */
export function query(
  xml: XmlSource,
  expression: string,
  namespaces: Namespaces = {},
  budget: OutputBudget = DEFAULT_BUDGET,
  output: QueryOutput = 'values',
): QueryResult {
  return withDocument(xml, 'query', (doc) => queryDocument(doc, expression, namespaces, budget, output));
}

/**
 * `query` on a document parsed for querying (`parseDocument(xml, 'query')`), which stays the
 * caller's. The expression is guarded here, the one place a single expression is.
 */
export function queryDocument(
  doc: XmlDocument,
  expression: string,
  namespaces: Namespaces = {},
  budget: OutputBudget = DEFAULT_BUDGET,
  output: QueryOutput = 'values',
): QueryResult {
  guardExpression(expression, namespaces);
  const reading = {
    output,
    budget,
    paths: new PathWriter(namespaces),
    opLimit: MAX_XPATH_OPERATIONS,
    view: () => xpath31View(doc),
  };
  return answer(documentPointer(doc), expression, namespaces, reading);
}

/** Parses once and answers every expression of a batch (`queryBatch`). */
export function queryAll(
  xml: XmlSource,
  expressions: readonly string[],
  namespaces: Namespaces = {},
  budget: OutputBudget = DEFAULT_BUDGET,
  output: QueryOutput = 'values',
): BatchEntry[] {
  return withDocument(xml, 'query', (doc) => queryBatch(doc, expressions, namespaces, budget, output));
}

/**
 * Answers several expressions against one parsed document, in order (docs/adr/0019-batch-queries.md).
 * An expression that fails gets its own error and the others are still answered; only a
 * `namespaces` argument XPath cannot use fails the whole call. The output budget and the XPath
 * operation budget are the batch's: each expression gets an equal share of the characters and
 * values the ones before it left, and the XPath steps they left (MAX_BATCH_XPATH_OPERATIONS).
 */
export function queryBatch(
  doc: XmlDocument,
  expressions: readonly string[],
  namespaces: Namespaces = {},
  budget: OutputBudget = DEFAULT_BUDGET,
  output: QueryOutput = 'values',
): BatchEntry[] {
  checkBindings(namespaces);
  const docPtr = documentPointer(doc);
  const paths = new PathWriter(namespaces);
  const view = () => xpath31View(doc);
  const names = batchNames(doc, expressions);
  // The padded-value probes are the whole batch's, as its names walk is (padded-value-hint.ts).
  const probes: ProbeAllowance = { probes: MAX_PADDED_VALUE_PROBES };
  let chars = budget.maxChars;
  let values = budget.maxValues;
  let operations = MAX_BATCH_XPATH_OPERATIONS;
  return expressions.map((xpath, index) => {
    const left = expressions.length - index;
    const share = { maxChars: Math.floor(chars / left), maxValues: Math.floor(values / left) };
    if (operations <= 0) {
      return {
        xpath,
        error: `Not evaluated: the expressions before it used this call's budget of ${MAX_BATCH_XPATH_OPERATIONS} XPath steps. Ask it in a call of its own.`,
        code: 'budget-exceeded',
      };
    }
    const cost = { operations: 0 };
    const opLimit = Math.min(MAX_XPATH_OPERATIONS, operations);
    try {
      const result = explainedQuery(
        doc,
        xpath,
        namespaces,
        () => {
          guardExpression(xpath, namespaces);
          return answer(docPtr, xpath, namespaces, { output, budget: share, paths, opLimit, cost, view });
        },
        names,
        probes,
      );
      chars -= charsOf(result);
      values -= result.values.length;
      return { xpath, ...result };
    } catch (error) {
      if (!(error instanceof EngineError)) throw error;
      // The entry stands for the argument: "The `xpath` argument is empty" reads as the whole array.
      const message = error.message.replace(/^The `xpath` argument/, 'The expression');
      return { xpath, error: message, code: error.code };
    } finally {
      operations -= cost.operations;
    }
  });
}

/** How to read one expression's answer, and what it may spend. */
interface Reading {
  output: QueryOutput;
  budget: OutputBudget;
  paths: PathWriter;
  opLimit: number;
  /** Adds up the XPath steps taken, for a batch's shared budget. */
  cost?: XPathCost;
  /** The document as XPath 3.1 sees it, for an expression XPath 1.0 cannot read; absent: 1.0 only. */
  view?: () => Xpath31View;
}

function answer(
  docPtr: DocumentRef,
  expression: string,
  namespaces: Namespaces,
  reading: Reading,
): QueryResult {
  const asString = stringOfNumber(docPtr, expression, namespaces, reading);
  if (asString) return asString;
  const result =
    reading.view && callsWhatXPath10Lacks(expression)
      ? (compileFailure(docPtr, expression, namespaces) ?? LACKED_FUNCTION)
      : evaluate10(docPtr, expression, namespaces, reading);
  if (!isXPathFailure(result)) return result;
  if (!reading.view || !mayBeXPath31(result)) throw failureError(expression, result, reading.opLimit);
  try {
    return answerXPath31(reading.view(), expression, namespaces, reading);
  } catch (error) {
    if (error instanceof EngineError) throw error;
    // Valid in neither language: the error of the one it was written in says what to fix (a
    // function XPath 3.1 lacks is named by 3.1, unless 1.0 knew it with other arguments).
    const code = error instanceof Error ? /\b(XPST0003|XPST0017)\b/.exec(error.message)?.[1] : undefined;
    const asWritten =
      (code === 'XPST0003' && !looksLikeXPath31(expression)) ||
      (code === 'XPST0017' && /^Invalid number of arguments/.test(result.reason));
    if (asWritten) throw failureError(expression, result, reading.opLimit);
    throw xpath31Error(expression, error, pointerAt);
  }
}

/**
 * libxml2 evaluates a call's arguments before it finds the function missing, so an expression
 * such as `count(distinct-values(//a/@b[. = //c/@d]))` ran its XPath 1.0 arguments, quadratic
 * there, into the step budget before XPath 3.1 was asked (ADR 0055). One that libxml2 compiles
 * and that calls a function it does not have goes to XPath 3.1 at once, with the failure
 * libxml2 would have given; one it cannot compile keeps its compile error.
 */
function callsWhatXPath10Lacks(expression: string): boolean {
  return tokenize(expression).some(
    (token) => token.kind === 'function' && !XPATH10_FUNCTIONS.has(token.name),
  );
}
const LACKED_FUNCTION: XPathFailure = {
  failed: 'evaluate',
  reason: 'Unregistered function',
  position: undefined,
};
/** libxml2's XPath 1.0 functions (its `escape-uri` too) and node type tests, which read as calls. */
const XPATH10_FUNCTIONS = new Set([
  'last',
  'position',
  'count',
  'id',
  'local-name',
  'namespace-uri',
  'name',
  'string',
  'concat',
  'starts-with',
  'contains',
  'substring-before',
  'substring-after',
  'substring',
  'string-length',
  'normalize-space',
  'translate',
  'boolean',
  'not',
  'true',
  'false',
  'lang',
  'number',
  'sum',
  'floor',
  'ceiling',
  'round',
  'escape-uri',
  'node',
  'text',
  'comment',
  'processing-instruction',
]);

/** Characters an answer takes in the budget: its values, and for paths the line numbers too. */
function charsOf(result: QueryResult): number {
  let chars = 0;
  for (const value of result.values) chars += shownCost(value);
  for (const line of result.lines ?? []) chars += String(line).length + 7;
  return chars;
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
  reading: Reading,
): QueryResult | undefined {
  const inner = soleArgumentOf('string', expression);
  if (inner === undefined) return undefined;
  const value = evaluate10(docPtr, inner, namespaces, { ...reading, output: 'values' });
  // Whatever failed inside is told by the whole expression's evaluation, with positions in the
  // whole (a caret placed in `inner` pointed at the wrong character), or answered as XPath 3.1.
  if (isXPathFailure(value)) return undefined;
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
  const reading = {
    output: 'values',
    budget,
    paths: new PathWriter(namespaces),
    opLimit: MAX_XPATH_OPERATIONS,
  } as const;
  return evaluateWith(doc, expression, namespaces, reading);
}

function evaluateWith(
  doc: DocumentRef,
  expression: string,
  namespaces: Namespaces,
  reading: Reading,
): QueryResult {
  const result = evaluate10(doc, expression, namespaces, reading);
  if (isXPathFailure(result)) throw failureError(expression, result, reading.opLimit);
  return result;
}

/** XPath 1.0 by libxml2: the answer, or why there is none. */
function evaluate10(
  doc: DocumentRef,
  expression: string,
  namespaces: Namespaces,
  reading: Reading,
): QueryResult | XPathFailure {
  const spent = { operations: 0 };
  const result = evaluateXPath(
    doc,
    expression,
    namespaces,
    reading.opLimit,
    (value) => readResult(value, reading),
    spent,
  );
  if (reading.cost) reading.cost.operations += spent.operations;
  return result;
}

function readResult(value: XPathValue, reading: Reading): QueryResult {
  const { budget } = reading;
  switch (value.type) {
    case 'node-set': {
      const read =
        reading.output === 'xml'
          ? markupWithinBudget(value.size, value.node, budget)
          : reading.output === 'paths'
            ? pathsWithinBudget(value.size, value.node, budget, reading.paths)
            : withinBudget(value.size, (i) => stringValue(value.node(i)), budget);
      return { type: 'node-set', count: value.size, ...read };
    }
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

function failureError(expression: string, failure: XPathFailure, opLimit: number): EngineError {
  return failure.failed === 'compile'
    ? compileError(expression, failure)
    : evaluationError(expression, failure, opLimit);
}

function compileError(expression: string, { reason, position }: XPathFailure): EngineError {
  const at = characterPosition(expression, position);
  const where = at === undefined ? '' : ` at character ${at + 1}`;
  const pointer = at === undefined ? '' : pointerAt(expression, at);
  return new EngineError({
    code: 'invalid-xpath',
    message: `The \`xpath\` argument is not a valid XPath 1.0 expression${where}: ${reason}.${pointer}`,
    ...(at === undefined ? {} : { column: at + 1 }),
  });
}

function evaluationError(expression: string, { reason }: XPathFailure, opLimit: number): EngineError {
  if (/operation limit/i.test(reason)) {
    const narrow =
      'a more specific path instead of `//`, fewer nested predicates over the whole document, or count(...) instead of listing.';
    const message =
      opLimit < MAX_XPATH_OPERATIONS
        ? `The expression \`${expression}\` ran past the ${opLimit} XPath steps left of this batch's budget of ${MAX_BATCH_XPATH_OPERATIONS} and was stopped. Ask it in a call of its own, or narrow it: ${narrow}`
        : `The expression \`${expression}\` ran past the operation budget of ${MAX_XPATH_OPERATIONS} XPath steps and was stopped. Narrow it: ${narrow}`;
    return new EngineError({ code: 'budget-exceeded', message });
  }
  return new EngineError({
    code: 'xpath-failed',
    message: `The expression \`${expression}\` could not be evaluated: ${reason}. Check function names and argument types (XPath 1.0).`,
  });
}

/**
 * The expression with a caret under the character at fault: the whole expression when short,
 * else a window of it around that character, so a 2,048-character expression is not repeated
 * whole (32 times, in a batch).
 */
export function pointerAt(expression: string, at: number): string {
  if (expression.length <= POINTER_WINDOW * 2) return `\n  ${expression}\n  ${' '.repeat(at)}^`;
  const start = Math.max(0, at - POINTER_WINDOW);
  const end = Math.min(expression.length, at + POINTER_WINDOW);
  const before = start > 0 ? '…' : '';
  const shown = `${before}${expression.slice(start, end)}${end < expression.length ? '…' : ''}`;
  return `\n  ${shown.isWellFormed() ? shown : shown.toWellFormed()}\n  ${' '.repeat(before.length + at - start)}^`;
}

const POINTER_WINDOW = 60;

/** libxml2 reports a byte offset into the UTF-8 expression; the model counts characters. */
function characterPosition(expression: string, byteOffset: number | undefined): number | undefined {
  if (byteOffset === undefined || byteOffset < 0) return undefined;
  const bytes = new TextEncoder().encode(expression);
  if (byteOffset > bytes.length) return undefined;
  return decodeUtf8(bytes.subarray(0, byteOffset)).length;
}
