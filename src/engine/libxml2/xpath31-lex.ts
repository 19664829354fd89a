/**
 * The tokens of an XPath 3.1 expression, as the rewriters of ADR 0055 read it: literals,
 * numbers, variables, names (with what follows them), symbols. Not a parser: each rewriter
 * decides what a run of tokens means and leaves alone what it cannot be sure of.
 */

import { scanName } from '../query/xpath-tokens.js';

export type Token =
  | { kind: 'string'; start: number; end: number; escaped: boolean }
  | { kind: 'number'; start: number; end: number; plain: boolean }
  /** An NCName, `p:l`, `p:*`, or `*` (which may be the operator). */
  | { kind: 'name'; start: number; end: number; prefix: string | null; local: string; before: string }
  | { kind: 'variable'; start: number; end: number }
  | { kind: 'symbol'; start: number; end: number; text: string }
  /** Anything this lexer does not read: an EQName, `*:l`. */
  | { kind: 'other'; start: number; end: number };

const NAME_START = /[\p{L}_]/u;
const SYMBOLS = ['//', '!=', '<=', '>=', ':=', '::', '||', '=>', '..', '<<', '>>'];

/**
 * What a literal token is in XPath 1.0 and 3.1 alike: a string without a doubled quote, a number
 * without an exponent (XPath 1.0 reads neither); null for a literal they read differently,
 * undefined for a token that is no literal.
 */
export function literalAlike(token: Token): 'string' | 'number' | null | undefined {
  if (token.kind === 'string') return token.escaped ? null : 'string';
  if (token.kind === 'number') return token.plain ? 'number' : null;
  return undefined;
}

/** The expression's tokens, or null for one whose literal or comment is not closed. */
export function lex(expression: string): Token[] | null {
  const tokens: Token[] = [];
  let at = 0;
  while (at < expression.length) {
    const char = expression[at] as string;
    if (/\s/.test(char)) {
      at++;
      continue;
    }
    if (expression.startsWith('(:', at)) {
      const end = commentEnd(expression, at);
      if (end === null) return null;
      at = end;
      continue;
    }
    if (char === '"' || char === "'") {
      let end = at + 1;
      let escaped = false;
      for (;;) {
        const close = expression.indexOf(char, end);
        if (close === -1) return null;
        if (expression[close + 1] !== char) {
          end = close + 1;
          break;
        }
        escaped = true;
        end = close + 2;
      }
      tokens.push({ kind: 'string', start: at, end, escaped });
      at = end;
      continue;
    }
    const number = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?/.exec(expression.slice(at, at + 64));
    if (number) {
      const end = at + number[0].length;
      tokens.push({ kind: 'number', start: at, end, plain: number[1] === undefined });
      at = end;
      continue;
    }
    if (char === '$') {
      const end = qnameEnd(expression, at + 1);
      tokens.push({ kind: 'variable', start: at, end });
      at = end;
      continue;
    }
    if (NAME_START.test(char) || char === '*') {
      const token = nameToken(expression, at);
      tokens.push(token);
      at = token.end;
      continue;
    }
    const text = SYMBOLS.find((symbol) => expression.startsWith(symbol, at)) ?? char;
    tokens.push({ kind: 'symbol', start: at, end: at + text.length, text });
    at += text.length;
  }
  return tokens;
}

/** Past the `:)` closing the comment at `start` (comments nest), or null. */
function commentEnd(expression: string, start: number): number | null {
  let depth = 0;
  for (let at = start; at < expression.length - 1; at++) {
    if (expression.startsWith('(:', at)) {
      depth++;
      at++;
    } else if (expression.startsWith(':)', at)) {
      at++;
      if (--depth === 0) return at + 1;
    }
  }
  return null;
}

function qnameEnd(expression: string, from: number): number {
  const end = scanName(expression, from);
  if (expression[end] === ':' && NAME_START.test(expression[end + 1] ?? ''))
    return scanName(expression, end + 1);
  return end;
}

function nameToken(expression: string, start: number): Token {
  if (expression[start] === '*') {
    // `*:local` is XPath 2.0 and later only.
    if (expression[start + 1] === ':' && NAME_START.test(expression[start + 2] ?? ''))
      return { kind: 'other', start, end: scanName(expression, start + 2) };
    return {
      kind: 'name',
      start,
      end: start + 1,
      prefix: null,
      local: '*',
      before: nextChar(expression, start + 1),
    };
  }
  const first = scanName(expression, start);
  // An EQName, Q{uri}local.
  if (expression[first] === '{' && first === start + 1 && expression[start] === 'Q') {
    const close = expression.indexOf('}', first);
    return { kind: 'other', start, end: close === -1 ? expression.length : scanName(expression, close + 1) };
  }
  let prefix: string | null = null;
  let local = expression.slice(start, first);
  let end = first;
  if (expression[first] === ':' && expression[first + 1] === '*') {
    prefix = local;
    local = '*';
    end = first + 2;
  } else if (expression[first] === ':' && NAME_START.test(expression[first + 1] ?? '')) {
    prefix = local;
    end = scanName(expression, first + 1);
    local = expression.slice(first + 1, end);
  }
  return { kind: 'name', start, end, prefix, local, before: nextChar(expression, end) };
}

/** The next character that is not white space (`:` for `::`), or ''. */
function nextChar(expression: string, from: number): string {
  let at = from;
  while (at < expression.length && /\s/.test(expression[at] as string)) at++;
  return expression[at] ?? '';
}
