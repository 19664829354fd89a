/**
 * Predicates whose value does not depend on the item they filter, evaluated once per filter
 * instead of once per item (ADR 0055, addendum 4). fontoxpath evaluates a predicate for each
 * item, so `$d[index-of($c, max($c))[1]]` over 362 values took `max` and `index-of` over 362
 * values 362 times: 20 of the 38 ms of the DocBook question. Rewritten as
 * `(let $oxml-invariant-1 := (index-of($c, max($c))[1]) return $d[$oxml-invariant-1])`, the
 * predicate's value is the same for every item either way, so the answer is the same: a number
 * still selects by position, anything else by its effective boolean value, and nothing is
 * evaluated for an empty `$d` (a `let` is read when first used).
 *
 * Only what is known not to read the focus is taken: variables, literals, operators, and calls
 * of functions that read only their arguments, at the top of the predicate (a nested
 * predicate has a focus of its own); no path step, `.`, `position()` or `last()`. The filtered
 * expression must be a variable, a parenthesized expression or a function call, so that the
 * rewrite wraps exactly it.
 */

import { lex, type Token } from './xpath31-lex.js';

/** Functions that read nothing but their arguments, whatever their arity. */
const ARGUMENTS_ONLY = new Set([
  'abs',
  'avg',
  'boolean',
  'ceiling',
  'codepoints-to-string',
  'compare',
  'concat',
  'contains',
  'count',
  'deep-equal',
  'distinct-values',
  'empty',
  'ends-with',
  'exists',
  'false',
  'floor',
  'head',
  'index-of',
  'lower-case',
  'matches',
  'max',
  'min',
  'not',
  'replace',
  'reverse',
  'round',
  'sort',
  'starts-with',
  'string-join',
  'subsequence',
  'substring',
  'substring-after',
  'substring-before',
  'sum',
  'tail',
  'tokenize',
  'translate',
  'true',
  'upper-case',
]);
/** Functions that read the context item when called without an argument. */
const FOCUS_WITHOUT_ARGUMENT = new Set(['data', 'normalize-space', 'number', 'string', 'string-length']);
const OPERATOR_NAMES = new Set(['and', 'or', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'div', 'idiv', 'mod', 'to']);
const OPERATOR_SYMBOLS = new Set(['(', ')', ',', '=', '!=', '<', '<=', '>', '>=', '+', '-', '||']);
/** Names that may stand before `(` without calling a function. */
const KEYWORDS = new Set([
  ...OPERATOR_NAMES,
  'return',
  'in',
  'then',
  'else',
  'satisfies',
  'union',
  'intersect',
  'except',
]);
const PREFIX = '$oxml-invariant-';

/** The expression with its invariant predicates hoisted, or null when it has none. */
export function hoistInvariantPredicates(expression: string): string | null {
  const tokens = lex(expression);
  if (tokens === null) return null;
  const sites: { start: number; open: number; close: number }[] = [];
  for (let open = 0; open < tokens.length; open++) {
    if (!isSymbol(tokens[open], '[')) continue;
    const close = closing(tokens, open);
    if (close === null) return null;
    const start = filteredStart(tokens, open - 1);
    if (start === null || !invariant(tokens, open + 1, close)) continue;
    // Sites do not overlap: one inside another's filtered expression or predicate is left.
    const last = sites[sites.length - 1];
    if (last !== undefined && start <= last.close) continue;
    sites.push({ start, open, close });
  }
  if (sites.length === 0) return null;
  let rewritten = '';
  let copied = 0;
  sites.forEach(({ start, open, close }, index) => {
    const variable = `${PREFIX}${index + 1}`;
    const at = (n: number) => (tokens[n] as Token).start;
    const after = (n: number) => (tokens[n] as Token).end;
    rewritten +=
      expression.slice(copied, at(start)) +
      `(let ${variable} := (${expression.slice(after(open), at(close))}\n) return ` +
      `${expression.slice(at(start), after(open))}${variable}])`;
    copied = after(close);
  });
  return rewritten + expression.slice(copied);
}

/**
 * The first token of the expression a predicate filters, whose last token is `last`: a
 * variable, `(…)`, or a function call `f(…)`; null for anything else (a step, a chain of
 * predicates, a dynamic call).
 */
function filteredStart(tokens: Token[], last: number): number | null {
  const token = tokens[last];
  if (token?.kind === 'variable') return precededByStep(tokens, last) ? null : last;
  if (!isSymbol(token, ')')) return null;
  const open = opening(tokens, last);
  if (open === null) return null;
  const before = tokens[open - 1];
  if (before?.kind === 'variable' || isSymbol(before, ')') || isSymbol(before, ']')) return null;
  if (before?.kind === 'name' && !(before.prefix === null && KEYWORDS.has(before.local))) {
    // A call, or a kind test (`text()`): a step after `/`, `@` or an axis.
    return precededByStep(tokens, open - 1) ? null : open - 1;
  }
  return precededByStep(tokens, open) ? null : open;
}

/**
 * Whether the token at `at` follows what binds it tighter than a parenthesized expression
 * standing there would: an axis, `@`, a lookup `?`, an arrow `=>`.
 */
function precededByStep(tokens: Token[], at: number): boolean {
  const before = tokens[at - 1];
  return ['::', '@', '?', '=>', '#'].some((text) => isSymbol(before, text));
}

/**
 * Whether tokens `first` to `last` (exclusive) read no focus, and call a function (a bare
 * variable or literal costs nothing to evaluate again).
 */
function invariant(tokens: Token[], first: number, last: number): boolean {
  let nested = 0;
  let calls = false;
  for (let at = first; at < last; at++) {
    const token = tokens[at] as Token;
    if (isSymbol(token, '[')) {
      // A predicate has a focus of its own; an array constructor (`[1, .]`) has the filter's.
      const before = tokens[at - 1];
      if (nested === 0 && !(before?.kind === 'variable' || isSymbol(before, ')') || isSymbol(before, ']')))
        return false;
      nested++;
    } else if (isSymbol(token, ']')) nested--;
    else if (nested > 0 || token.kind === 'variable' || token.kind === 'string' || token.kind === 'number') {
      // A nested predicate's focus is its own item; variables and literals read none.
    } else if (token.kind === 'symbol') {
      if (!OPERATOR_SYMBOLS.has(token.text)) return false;
    } else if (
      token.kind !== 'name' ||
      (token.prefix !== null && token.prefix !== 'fn' && token.prefix !== 'xs')
    ) {
      return false;
    } else if (token.before === '(') {
      const name = token.local;
      const takesArgument = !isSymbol(tokens[at + 2], ')');
      if (
        token.prefix === 'xs'
          ? !takesArgument
          : !ARGUMENTS_ONLY.has(name) && !(FOCUS_WITHOUT_ARGUMENT.has(name) && takesArgument)
      )
        return false;
      calls = true;
    } else if (token.prefix !== null || !OPERATOR_NAMES.has(token.local)) {
      return false;
    }
  }
  return calls && nested === 0 && first < last;
}

function isSymbol(token: Token | undefined, text: string): boolean {
  return token?.kind === 'symbol' && token.text === text;
}

/** The `]` closing the `[` at `open`, or null. */
function closing(tokens: Token[], open: number): number | null {
  let depth = 0;
  for (let at = open; at < tokens.length; at++) {
    if (isSymbol(tokens[at], '[')) depth++;
    else if (isSymbol(tokens[at], ']') && --depth === 0) return at;
  }
  return null;
}

/** The `(` opening the `)` at `close`, or null. */
function opening(tokens: Token[], close: number): number | null {
  let depth = 0;
  for (let at = close; at >= 0; at--) {
    if (isSymbol(tokens[at], ')')) depth++;
    else if (isSymbol(tokens[at], '(') && --depth === 0) return at;
  }
  return null;
}
