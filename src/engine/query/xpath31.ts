import type { XmlDocument } from 'libxml2-wasm';
import { EngineError } from '../errors.js';
import { documentPointer, type NodeRef, stringValue } from '../libxml2/tree.js';
import type { XPathFailure } from '../libxml2/xpath.js';
import {
  evaluateXPath31Counted,
  type Xpath31Answer,
  type Xpath31Item,
  Xpath31View,
} from '../libxml2/xpath31-view.js';
import type { PathWriter } from './node-path.js';
import type { OutputBudget, QueryOutput, QueryResult } from './result.js';
import { markupWithinBudget, pathsWithinBudget, withinBudget } from './within-budget.js';
import { forgetPatterns } from './xsd-regex.js';

/*
 * XPath 3.1 beside XPath 1.0 (docs/adr/0033-xpath-3-1-beside-xpath-1-0.md): an expression is
 * evaluated by libxml2 as XPath 1.0 first, exactly as before; only one that XPath 1.0 cannot read
 * (it does not compile, or calls a function, prefix or variable XPath 1.0 lacks) is evaluated
 * again as XPath 3.1, by fontoxpath over the same parsed document. No XPath 1.0 answer changes.
 */

/** Whether XPath 1.0's failure means the expression may be XPath 3.1, rather than simply wrong. */
export function mayBeXPath31(failure: XPathFailure): boolean {
  return failure.failed === 'compile' || XPATH_1_LACKS.test(failure.reason);
}
const XPATH_1_LACKS =
  /^(Unregistered function|Undefined namespace prefix|Undefined variable|Invalid number of arguments)/;

/**
 * One view of a parsed document for fontoxpath, kept as long as the parse is (the parse cache's
 * documents live across calls): the wrappers it made for the nodes an expression reached are
 * reused by the next expression instead of being made again.
 */
const views = new WeakMap<XmlDocument, Xpath31View>();

export function xpath31View(doc: XmlDocument): Xpath31View {
  let view = views.get(doc);
  if (view === undefined) {
    view = new Xpath31View(documentPointer(doc));
    views.set(doc, view);
  }
  return view;
}

/** How to read an answer's items: the node form asked for, within the budget. */
export interface ItemReading {
  output: QueryOutput;
  budget: OutputBudget;
  paths: PathWriter;
  /** libxml2's step budget for the paths it selects in the expression's place (ADR 0055). */
  opLimit?: number;
}

/**
 * Evaluates `expression` as XPath 3.1 with the document node as context. Prefixes resolve against
 * `namespaces` (and XPATH31_PREFIXES); an unprefixed name test is in no namespace, as in XPath 1.0.
 * Throws fontoxpath's own error for an expression it cannot evaluate (`xpath31Error` words it).
 */
export function answerXPath31(
  view: Xpath31View,
  expression: string,
  namespaces: Record<string, string>,
  reading: ItemReading,
): QueryResult & { hint?: string } {
  try {
    const answer = evaluateIn(view, expression, namespaces, reading.budget.maxValues, reading.opLimit);
    const hints = [decimalNoiseHint(answer.items), exponentHint(answer.items)].filter(Boolean);
    const hint = hints.length > 0 ? hints.join(' ') : undefined;
    return { ...readItems(answer, reading), xpath_version: '3.1', ...(hint === undefined ? {} : { hint }) };
  } finally {
    forgetPatterns();
  }
}

function evaluateIn(
  view: Xpath31View,
  expression: string,
  namespaces: Record<string, string>,
  limit: number,
  opLimit: number | undefined,
): Xpath31Answer {
  let answer: Xpath31Answer;
  try {
    answer = evaluateXPath31Counted(view.docPtr, expression, namespaces, { view, limit, opLimit });
  } catch (error) {
    if (!(error instanceof Error) || !/XPST0003/.test(error.message)) throw error;
    // XQuery 3.1 adds FLWOR's `order by` and `where` (XPath 3.1 sorts only with fn:sort); an
    // expression that is neither is answered with XPath 3.1's syntax error.
    try {
      answer = evaluateXPath31Counted(view.docPtr, expression, namespaces, {
        view,
        limit,
        opLimit,
        language: 'xquery',
      });
    } catch (xquery) {
      // XQuery read it and then failed (a function it lacks, a type error): that is the error to
      // tell. Only when it cannot read it either is XPath 3.1's syntax error the better one.
      const xqueryRead = xquery instanceof Error && !/XPST0003/.test(xquery.message);
      // A FLWOR of several clauses is XQuery: its syntax error is the one that fits.
      throw xqueryRead || /FLWOR expressions in XPath/.test(error.message) ? xquery : error;
    }
  }
  return answer;
}

/** The items as an answer: nodes (at least one) as a node-set in any output form, else values. */
function readItems(
  { count, nodes, items }: Xpath31Answer,
  { output, budget, paths }: ItemReading,
): QueryResult {
  if (nodes && count > 0) {
    // Only the first maxValues items were read out; the budget never asks for more.
    const nodeAt = (index: number) =>
      (items[index] as Extract<Xpath31Item, { kind: 'node' }>).node as NodeRef;
    const read =
      output === 'xml'
        ? markupWithinBudget(count, nodeAt, budget)
        : output === 'paths'
          ? pathsWithinBudget(count, nodeAt, budget, paths)
          : withinBudget(count, (index) => stringValue(nodeAt(index)), budget);
    return { type: 'node-set', count, ...read };
  }
  const [only] = items;
  if (count === 1 && only !== undefined && only.kind !== 'node') {
    return { type: typeOf(only), count: 1, ...withinBudget(1, () => textOf(only), budget) };
  }
  return {
    type: 'sequence',
    count,
    ...withinBudget(count, (index) => textOf(items[index] as Xpath31Item), budget),
  };
}

/**
 * fontoxpath holds an xs:decimal as a double (docs/w3c-conformance.md, `decimal-as-double`): a sum
 * of prices comes back `487810997.3900007`, and `xs:decimal('0.1') + xs:decimal('0.2')` as
 * `0.30000000000000004`, where XPath promises decimals exact. A model that chose xs:decimal for
 * exact money would report the noise as exact; past 15 significant digits a decimal shown says so.
 */
function decimalNoiseHint(items: readonly Xpath31Item[]): string | undefined {
  const noisy = items.find(
    (item) => item.kind === 'atomic' && item.type === 'xs:decimal' && significantDigits(item.text) > 15,
  );
  if (noisy === undefined || noisy.kind !== 'atomic') return undefined;
  return `xs:decimal is computed as a double here (exact to about 15 significant digits), so ${noisy.text} carries rounding noise: round it, e.g. round-half-to-even(…, 2) for cents.`;
}

/**
 * XPath 3.1 writes an xs:double from 10^6 up in exponent form (`7.688775997E9`), where XPath 1.0
 * and a model's prose write digits. A model trying CLDR's populations had to convert the sum
 * itself; the first such value is spelled out (JavaScript writes digits up to 10^21).
 */
function exponentHint(items: readonly Xpath31Item[]): string | undefined {
  const written = items.find(
    (item) =>
      item.kind === 'atomic' &&
      (item.type === 'xs:double' || item.type === 'xs:float') &&
      /E\d/.test(item.text) &&
      Math.abs(Number(item.text)) < 1e21,
  );
  if (written === undefined || written.kind !== 'atomic') return undefined;
  return `${written.type} is written in exponent form from 10^6 up, as XPath 3.1 does: ${written.text} is ${String(Number(written.text))}.`;
}

function significantDigits(text: string): number {
  return text
    .replace(/^[-+]?0*\.?0*/, '')
    .replace(/\./, '')
    .replace(/E.*$/i, '')
    .replace(/0+$/, '').length;
}

const NUMERIC = new Set(['xs:integer', 'xs:decimal', 'xs:double', 'xs:float']);

function typeOf(item: Exclude<Xpath31Item, { kind: 'node' }>): QueryResult['type'] {
  if (item.kind === 'map' || item.kind === 'array') return item.kind;
  if (item.kind !== 'atomic') return 'sequence';
  if (NUMERIC.has(item.type)) return 'number';
  return item.type === 'xs:boolean' ? 'boolean' : 'string';
}

/** An item as text: an atomic value as XPath 3.1's string() writes it, a node's string-value, a map or array as JSON. */
function textOf(item: Xpath31Item): string {
  switch (item.kind) {
    case 'node':
      return stringValue(item.node);
    case 'atomic':
      return item.text;
    case 'function':
      throw new EngineError({
        code: 'xpath-failed',
        message:
          'The expression returns a function, which has no value to show: call it with its arguments to get one.',
      });
    default:
      return JSON.stringify(item.value) ?? 'null';
  }
}

/**
 * fontoxpath's error as a sentence with the W3C code, the expression's position for a syntax
 * error (a caret under it, as for XPath 1.0), and what to do for the mistakes models make.
 */
export function xpath31Error(
  expression: string,
  error: unknown,
  pointerAt: (expression: string, at: number) => string,
): EngineError {
  if (!(error instanceof Error)) throw error;
  const message = error.message;
  const code = /\b([A-Z]{4}\d{4})\b/.exec(message)?.[1];
  if (code === 'XPST0003') {
    const at = syntaxErrorOffset(error);
    const reason = shortened(
      /XPST0003:?\s*([^\n]*)/.exec(message)?.[1]?.replace(/\s+at <>.*$/, '') ?? 'syntax error',
    );
    const where = at === undefined ? '' : ` at character ${at + 1}`;
    return new EngineError({
      code: 'invalid-xpath',
      message: `The \`xpath\` argument is not a valid XPath 1.0 or XPath 3.1 expression${where}: XPST0003 ${reason.replace(/\.$/, '')}.${at === undefined ? '' : pointerAt(expression, at)}`,
      ...(at === undefined ? {} : { column: at + 1 }),
    });
  }
  if (code === 'XPST0008') {
    const name = /variable (\S+) is not in scope/.exec(message)?.[1];
    return new EngineError({
      code: 'unbound-variable',
      message: `The expression uses the variable \`$${name ?? '…'}\`, which nothing binds (XPST0008): bind it in the expression (\`let $${name ?? 'x'} := … return …\`, \`for $${name ?? 'x'} in … return …\`) or write the value in its place.`,
    });
  }
  if (code === 'XQDY0054') {
    const name = /\bdeclare\s+variable\s+\$([\w.:-]+)\s+external\b/.exec(expression)?.[1];
    return new EngineError({
      code: 'unbound-variable',
      message: `The expression declares an external variable${name ? ` (\`$${name}\`)` : ''} (XQDY0054), and nothing here supplies one: give it its value in the expression (\`declare variable $x := …;\`) or write the value in its place.`,
    });
  }
  const refusal = UNSUPPORTED.find(([pattern]) => pattern.test(message));
  if (refusal !== undefined) {
    return new EngineError({
      code: 'xpath-failed',
      message: `The expression \`${expression}\` could not be evaluated as XPath 3.1: ${refusal[1]}`,
    });
  }
  const detail = shortened(message.replace(/\s+/g, ' ').trim(), 400);
  const advice = code === undefined ? '' : (ADVICE[code]?.(detail) ?? '');
  return new EngineError({
    code: 'xpath-failed',
    message: `The expression \`${expression}\` could not be evaluated as XPath 3.1: ${detail}${advice}`,
  });
}

/**
 * fontoxpath's errors for what this server does not give it, worded for a model instead of as
 * the JavaScript failure behind them ("Cannot read properties of undefined (reading
 * 'createElementNS')"): no node factory, so no new nodes; no serializer.
 */
const UNSUPPORTED: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /node factory|reading 'create(?:Element|Attribute|TextNode|Comment|ProcessingInstruction|CDATASection|Document)|documentWriter|XUST0001|counterpart for: \w*Constructor/,
    'it builds new nodes (an element, attribute, text or document constructor, or `copy … modify`), and no new node can be made here: the document is only read. Select the nodes and compute values from them instead; `output: "xml"` shows a node as markup.',
  ],
  [
    /no xmlSerializer set/,
    '`serialize()` is not available here. To see nodes as markup select them and pass `output: "xml"`; a map or an array is already answered as JSON.',
  ],
];

/** What to do next, for the errors a model meets most. */
const ADVICE: Record<string, (detail: string) => string> = {
  XPTY0004: (detail) =>
    /Multiplicity/i.test(detail)
      ? ' A function that takes one value was given several: apply it to each with `!` (`//a ! lower-case(.)`) or pick one (`(//a)[1]`).'
      : ' Convert the values first (`number(.)`, `string(.)`, `xs:date(.)`).',
  XPST0017: () =>
    ' Neither XPath 1.0 nor XPath 3.1 (as this server evaluates it) has that function with that many arguments.',
  FORG0001: () =>
    ' A value does not have the form of the type it is cast to: check it with `xml_query` first, or test it (`. castable as xs:date`).',
};

/** fontoxpath lists every token it would have taken (a thousand characters of character classes). */
function shortened(reason: string, max = 160): string {
  return reason.length <= max ? reason : `${reason.slice(0, max - 40)}…`;
}

/** fontoxpath's syntax errors carry the span at fault; `start.offset` counts characters. */
function syntaxErrorOffset(error: Error): number | undefined {
  const position = (error as { position?: { start?: { offset?: unknown } } }).position;
  const offset = position?.start?.offset;
  return typeof offset === 'number' && offset >= 0 ? offset : undefined;
}

/**
 * Syntax only XPath 2.0 and later have (string literals masked): when an expression is valid in
 * neither language, the error of the language it was written in is the useful one.
 */
export function looksLikeXPath31(expression: string): boolean {
  const code = expression.replace(/"[^"]*"|'[^']*'/g, (literal) => ' '.repeat(literal.length));
  return LATER_SYNTAX.test(code);
}
const LATER_SYNTAX =
  /\$|\|\||=>|:=|!(?!=)|\b(?:for|let|some|every)\s+\$|\b(?:return|then|satisfies|instance\s+of|cast\s+as|castable\s+as|treat\s+as)\b|\b(?:map|array)\s*\{|\bfunction\s*\(|\b(?:xs|fn|math|map|array):/;
