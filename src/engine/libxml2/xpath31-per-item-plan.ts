/**
 * A per-item computation after a selected path: `//record ! number(price)`,
 * `//item ! xs:decimal(@amount)`, `//line ! (qty * price)`, `//class ! count(method)`
 * (docs/adr/0055-xpath-3-1-paths-selected-by-libxml2.md, addendum "per-item values"). The right
 * operand of `!` is read here into a small tree that xpath31-per-item.ts evaluates for each
 * selected node by walking libxml2's structs, where fontoxpath would take each child step through
 * the view's wrappers and atomize node by node.
 *
 * Only numbers are computed: `number()`, `xs:double()`, `xs:decimal()` and `count()` of a
 * relative path of child and attribute steps by name (or `.`), and `+`, `-`, `*`, `div` of those,
 * of such paths (atomized and cast to xs:double, as XPath 3.1 does with untyped operands) and of
 * numeric literals. Anything else is left as written. Each result's type is known from the tree,
 * so the values are handed back as one typed sequence.
 */

import type { Token } from './xpath31-lex.js';

/** A child or attribute step by name; `uri` null is no namespace. */
export interface NodeStep {
  attribute: boolean;
  uri: string | null;
  local: string;
}

export type PerItemType = 'double' | 'decimal' | 'integer';

export type PerItemExpression =
  /** `number(path)`: NaN for no node. */
  | { kind: 'number'; path: NodeStep[] }
  /** `xs:double(path)`, `xs:decimal(path)`: empty for no node. */
  | { kind: 'cast'; type: 'double' | 'decimal'; path: NodeStep[] }
  | { kind: 'count'; path: NodeStep[] }
  /** A path as an arithmetic operand: its one node's value cast to xs:double; empty for no node. */
  | { kind: 'untyped'; path: NodeStep[] }
  | { kind: 'literal'; type: 'integer' | 'decimal'; value: number }
  | {
      kind: 'arithmetic';
      operator: '+' | '-' | '*' | 'div';
      type: PerItemType;
      left: PerItemExpression;
      right: PerItemExpression;
    };

/** The computation read, its type, and its first and last tokens (the path's included). */
export interface PerItemRead {
  expression: PerItemExpression;
  type: PerItemType;
  first: number;
  last: number;
}

const XS = 'http://www.w3.org/2001/XMLSchema';
const FN = 'http://www.w3.org/2005/xpath-functions';
const XML = 'http://www.w3.org/XML/1998/namespace';
/**
 * An XQuery prolog may rebind what this module reads by name (`declare default function
 * namespace`, `declare namespace xs = …`, a declared function): such an expression is left whole.
 */
const PROLOG = /^(?:\s|\(:[\s\S]*?:\))*(?:xquery\s+version|declare\s|import\s)/;
/** Tokens after which the computation would not be the whole right operand of `!`. */
const BINDS_TIGHTER = new Set(['/', '//', '[', '(', '?']);

/**
 * The computation that is the right operand of the `!` (or the last step after the `/`: its
 * values are numbers, which `/` keeps in order as `!` does) at `operator`, or null when it is not
 * one this module computes exactly.
 */
export function readPerItem(
  expression: string,
  tokens: Token[],
  pathStart: number,
  pathLast: number,
  namespaces: Record<string, string>,
): PerItemRead | null {
  if (PROLOG.test(expression)) return null;
  const source = { expression, tokens, namespaces };
  const operator = pathLast + 1;
  if (!symbolAt(tokens, operator, '!') && !symbolAt(tokens, operator, '/'))
    return readForReturn(source, pathStart, pathLast);
  const reader = new PerItemReader(source, operator + 1, null);
  const read = reader.top();
  if (read === null) return null;
  const after = tokens[reader.at];
  if (after?.kind === 'symbol' && BINDS_TIGHTER.has(after.text)) return null;
  return { ...read, first: pathStart, last: reader.at - 1 };
}

/**
 * `for $r in path return E`, E a computation whose paths all start at `$r` (`number($r/price)`,
 * `$r/qty * $r/price`): the same values as `path ! E` with `.` for `$r`. E must end where the
 * `for` does (at `)`, `]`, `,` or the end), and may not read the context item, which is not `$r`.
 */
function readForReturn(source: Source, pathStart: number, pathLast: number): PerItemRead | null {
  const { expression, tokens } = source;
  const [keyword, variable, keywordIn] = tokens.slice(pathStart - 3, pathStart);
  const back = tokens[pathLast + 1];
  const isKeyword = (token: Token | undefined, word: string) =>
    token?.kind === 'name' && token.prefix === null && token.local === word;
  if (!isKeyword(keyword, 'for') || variable?.kind !== 'variable' || !isKeyword(keywordIn, 'in')) return null;
  if (!isKeyword(back, 'return')) return null;
  const name = expression.slice(variable.start, variable.end);
  const reader = new PerItemReader(source, pathLast + 2, name);
  const read = reader.body();
  const after = tokens[reader.at];
  if (
    read === null ||
    !(after === undefined || [')', ']', ','].some((text) => symbolAt(tokens, reader.at, text)))
  )
    return null;
  return { ...read, first: pathStart - 3, last: reader.at - 1 };
}

function symbolAt(tokens: Token[], at: number, text: string): boolean {
  const token = tokens[at];
  return token?.kind === 'symbol' && token.text === text;
}

/** The expression being planned, its tokens and the prefixes the call binds. */
interface Source {
  expression: string;
  tokens: Token[];
  namespaces: Record<string, string>;
}

type Typed = { expression: PerItemExpression; type: PerItemType | 'untyped' };

class PerItemReader {
  readonly #expression: string;
  readonly #tokens: Token[];
  readonly #namespaces: Record<string, string>;
  /** `$r` of `for $r in …`, whose paths start with it; null: paths start at the context item. */
  readonly #variable: string | null;
  at: number;
  constructor(source: Source, at: number, variable: string | null) {
    this.#expression = source.expression;
    this.#tokens = source.tokens;
    this.#namespaces = source.namespaces;
    this.at = at;
    this.#variable = variable;
  }

  /** A call, or a parenthesized arithmetic expression: a path expression, so all of `!`'s operand. */
  top(): { expression: PerItemExpression; type: PerItemType } | null {
    return this.#typed(symbolAt(this.#tokens, this.at, '(') ? this.#parenthesized() : this.#call());
  }

  /** A `return` clause: arithmetic, up to where the `for` ends. */
  body(): { expression: PerItemExpression; type: PerItemType } | null {
    return this.#typed(this.#additive());
  }

  #typed(read: Typed | null): { expression: PerItemExpression; type: PerItemType } | null {
    if (read === null || read.type === 'untyped' || read.expression.kind === 'literal') return null;
    return { expression: read.expression, type: read.type };
  }

  #parenthesized(): Typed | null {
    this.at++;
    const inner = this.#additive();
    if (inner === null || !symbolAt(this.#tokens, this.at, ')')) return null;
    this.at++;
    return inner;
  }

  #additive(): Typed | null {
    let left = this.#multiplicative();
    for (;;) {
      const token = this.#tokens[this.at];
      if (left === null || token?.kind !== 'symbol' || (token.text !== '+' && token.text !== '-'))
        return left;
      this.at++;
      left = this.#combine(token.text, left, this.#multiplicative());
    }
  }

  #multiplicative(): Typed | null {
    let left = this.#primary();
    for (;;) {
      const token = this.#tokens[this.at];
      const operator =
        token?.kind === 'name' && token.prefix === null && (token.local === '*' || token.local === 'div')
          ? token.local
          : null;
      if (left === null || operator === null) return left;
      this.at++;
      left = this.#combine(operator, left, this.#primary());
    }
  }

  /**
   * XPath 3.1's arithmetic on the operands' types: an untyped value is cast to xs:double, then
   * the wider of the two numeric types wins. Division is taken on doubles only (decimal and
   * integer division raise on zero and round otherwise).
   */
  #combine(operator: string, left: Typed, right: Typed | null): Typed | null {
    if (right === null) return null;
    const types = [left.type, right.type];
    const type: PerItemType =
      types.includes('double') || types.includes('untyped')
        ? 'double'
        : types.includes('decimal')
          ? 'decimal'
          : 'integer';
    if (operator === 'div' && type !== 'double') return null;
    return {
      expression: {
        kind: 'arithmetic',
        operator: operator as '+' | '-' | '*' | 'div',
        type,
        left: left.expression,
        right: right.expression,
      },
      type,
    };
  }

  #primary(): Typed | null {
    const token = this.#tokens[this.at];
    if (token === undefined) return null;
    if (token.kind === 'number') {
      if (!token.plain) return null;
      this.at++;
      const text = this.#expression.slice(token.start, token.end);
      const type = text.includes('.') ? 'decimal' : 'integer';
      if (type === 'integer' && !Number.isSafeInteger(Number(text))) return null;
      return { expression: { kind: 'literal', type, value: Number(text) }, type };
    }
    if (symbolAt(this.#tokens, this.at, '(')) return this.#parenthesized();
    if (token.kind === 'name' && token.before === '(') return this.#call();
    if (token.kind === 'variable' && this.#variable === null) return null;
    const path = this.#path();
    return path === null ? null : { expression: { kind: 'untyped', path }, type: 'untyped' };
  }

  #call(): Typed | null {
    const token = this.#tokens[this.at];
    if (token?.kind !== 'name' || token.before !== '(') return null;
    const name = this.#function(token);
    if (name === null) return null;
    this.at += 2;
    let path: NodeStep[] | null = [];
    // number() reads the context item, which a `for` body's is not.
    if (!(name === 'number' && symbolAt(this.#tokens, this.at, ')'))) path = this.#path();
    else if (this.#variable !== null) return null;
    if (path === null || !symbolAt(this.#tokens, this.at, ')')) return null;
    this.at++;
    if (name === 'number') return { expression: { kind: 'number', path }, type: 'double' };
    if (name === 'count') return { expression: { kind: 'count', path }, type: 'integer' };
    const type = name === 'xs:double' ? 'double' : 'decimal';
    return { expression: { kind: 'cast', type, path }, type };
  }

  /** `number`, `count`, `xs:double` or `xs:decimal` (each prefix meaning what it does by default). */
  #function(token: Extract<Token, { kind: 'name' }>): string | null {
    const bound = token.prefix === null ? FN : this.#namespaces[token.prefix];
    const uri = bound ?? (token.prefix === 'xs' ? XS : token.prefix === 'fn' ? FN : undefined);
    if (uri === FN && (token.local === 'number' || token.local === 'count')) return token.local;
    if (uri === XS && (token.local === 'double' || token.local === 'decimal')) return `xs:${token.local}`;
    return null;
  }

  /**
   * `.`, or child and attribute steps by name joined by `/`; `.` is the empty path. In a `for`
   * body: `$r`, or `$r/` and the steps.
   */
  #path(): NodeStep[] | null {
    if (this.#variable !== null) {
      const token = this.#tokens[this.at];
      if (token?.kind !== 'variable' || this.#expression.slice(token.start, token.end) !== this.#variable)
        return null;
      this.at++;
      if (!symbolAt(this.#tokens, this.at, '/')) return [];
      this.at++;
    } else if (symbolAt(this.#tokens, this.at, '.')) {
      this.at++;
      return [];
    }
    const steps: NodeStep[] = [];
    for (;;) {
      const attribute = symbolAt(this.#tokens, this.at, '@');
      const token = this.#tokens[attribute ? this.at + 1 : this.at];
      if (token?.kind !== 'name' || token.local === '*') return null;
      // `name(`, `name::`, `name#1`, `map {`: a call, an axis, a function reference.
      if (token.before !== '' && '(:#{'.includes(token.before)) return null;
      let uri: string | null = null;
      if (token.prefix === 'xml') uri = XML;
      else if (token.prefix !== null) {
        if (!Object.hasOwn(this.#namespaces, token.prefix)) return null;
        uri = this.#namespaces[token.prefix] as string;
      }
      steps.push({ attribute, uri, local: token.local });
      this.at += attribute ? 2 : 1;
      if (attribute || !symbolAt(this.#tokens, this.at, '/')) return steps;
      this.at++;
    }
  }
}
