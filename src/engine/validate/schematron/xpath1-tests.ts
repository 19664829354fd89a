import { type ComparedOperand, comparedAlike } from '../../libxml2/xpath-comparison.js';
import { lex, type Token } from '../../libxml2/xpath31-paths.js';

/**
 * A test of an XPath 3.1 rule (`queryBinding="xslt2"`) that libxml2 can evaluate as XPath 1.0
 * with the same answer: `expression` in XPath 1.0's words (`exists` as `boolean`, `empty` as
 * `not`), `guards` XPath 1.0 tests on the same context node, each true where the two languages
 * could answer differently (a value XPath 3.1 would refuse), so the rule is then evaluated by
 * fontoxpath as written. `absolute`: it reads a path from the root, the same on every node.
 * ADR 0053, Addendum 2.
 */
export interface Xpath1Test {
  expression: string;
  guards: string[];
  absolute: boolean;
}

/** What an operand is, for XPath 3.1's typing rules that XPath 1.0 does not have. */
type Kind = ComparedOperand;

const COMPARISONS = new Set(['=', '!=', '<', '<=', '>', '>=']);
/** Axes both languages walk alike (the namespace axis is not one: XPath 2.0 deprecates it). */
const AXES = new Set([
  'child',
  'descendant',
  'descendant-or-self',
  'self',
  'parent',
  'ancestor',
  'ancestor-or-self',
  'following-sibling',
  'preceding-sibling',
  'following',
  'preceding',
  'attribute',
]);
const KIND_TESTS = new Set(['node', 'text', 'comment']);
/**
 * Functions both languages define alike, by argument: `any` (an effective boolean value, the
 * same in both for these operands), `path` (nodes), `node` (at most one node: more is XPath 3.1's
 * type error, so a path gets a guard), or `string` (a string, or a path as for `node`). The
 * result's kind, and the XPath 1.0 name where it differs (`ends-with`, which XPath 1.0 lacks, is
 * written with `substring` and `string-length`).
 */
const FUNCTIONS: Record<
  string,
  {
    args: ('any' | 'path' | 'node' | 'string')[];
    optional?: number;
    rest?: boolean;
    result: Kind;
    as?: string;
  }
> = {
  not: { args: ['any'], result: 'boolean' },
  boolean: { args: ['any'], result: 'boolean' },
  exists: { args: ['path'], result: 'boolean', as: 'boolean' },
  empty: { args: ['path'], result: 'boolean', as: 'not' },
  true: { args: [], result: 'boolean' },
  false: { args: [], result: 'boolean' },
  count: { args: ['path'], result: 'number' },
  'normalize-space': { args: ['string'], optional: 1, result: 'string' },
  'string-length': { args: ['string'], optional: 1, result: 'number' },
  string: { args: ['string'], optional: 1, result: 'string' },
  contains: { args: ['string', 'string'], result: 'boolean' },
  'starts-with': { args: ['string', 'string'], result: 'boolean' },
  'substring-before': { args: ['string', 'string'], result: 'string' },
  'substring-after': { args: ['string', 'string'], result: 'string' },
  concat: { args: ['string', 'string'], rest: true, result: 'string' },
  translate: { args: ['string', 'string', 'string'], result: 'string' },
  'ends-with': { args: ['string', 'string'], result: 'boolean' },
  name: { args: ['node'], optional: 1, result: 'string' },
  'local-name': { args: ['node'], optional: 1, result: 'string' },
};

/**
 * The test as XPath 1.0 that libxml2 answers as fontoxpath would, or null for anything outside
 * the subset read here: paths (steps on the axes above by name, `*`, `node()`, `text()`, with
 * predicates), string and number literals, `=` `!=` `<` `<=` `>` `>=` where both languages
 * compare alike, `and`, `or`, `|`, and the functions above. Never a variable, arithmetic, a
 * cast, `if`, `for`, `some`/`every`, or a prefix the schema does not bind.
 */
export function xpath1Test(test: string, namespaces: Record<string, string>): Xpath1Test | null {
  if (test.includes('(:')) return null;
  const tokens = lex(test);
  if (tokens === null || tokens.length === 0) return null;
  const reader = new TestReader(test, tokens, namespaces);
  return reader.read();
}

class TestReader {
  #at = 0;
  readonly #test: string;
  readonly #tokens: Token[];
  readonly #namespaces: Record<string, string>;
  readonly #guards: string[] = [];
  /** Token ranges XPath 1.0 writes otherwise: first index → the last and the replacement. */
  readonly #replaced = new Map<number, { last: number; text: string }>();
  #absolute = false;
  /** Inside a predicate the context node is another, so a guard (written for the test's) cannot be. */
  #predicateDepth = 0;

  constructor(test: string, tokens: Token[], namespaces: Record<string, string>) {
    this.#test = test;
    this.#tokens = tokens;
    this.#namespaces = namespaces;
  }

  read(): Xpath1Test | null {
    if (this.#or() === null || this.#at !== this.#tokens.length) return null;
    return {
      expression: this.#text(0, this.#tokens.length - 1),
      guards: this.#guards,
      absolute: this.#absolute,
    };
  }

  /** The text of tokens [first, last] in XPath 1.0's words. */
  #text(first: number, last: number): string {
    const pieces: string[] = [];
    let copied = (this.#tokens[first] as Token).start;
    for (let index = first; index <= last; index++) {
      const replaced = this.#replaced.get(index);
      if (replaced === undefined) continue;
      pieces.push(this.#test.slice(copied, (this.#tokens[index] as Token).start), replaced.text);
      copied = (this.#tokens[replaced.last] as Token).end;
      index = replaced.last;
    }
    pieces.push(this.#test.slice(copied, (this.#tokens[last] as Token).end));
    return pieces.join('');
  }

  #token(offset = 0): Token | undefined {
    return this.#tokens[this.#at + offset];
  }

  #isSymbol(text: string, offset = 0): boolean {
    const token = this.#token(offset);
    return token?.kind === 'symbol' && token.text === text;
  }

  #keyword(word: string): boolean {
    const token = this.#token();
    if (token?.kind === 'name' && token.prefix === null && token.local === word) {
      this.#at++;
      return true;
    }
    return false;
  }

  #or(): Kind | null {
    return this.#joined('or', () => this.#joined('and', () => this.#comparison()));
  }

  /** Operands joined by `and` or `or`: a boolean when there are several. */
  #joined(word: 'and' | 'or', operand: () => Kind | null): Kind | null {
    let kind = operand();
    while (kind !== null && this.#keyword(word)) kind = operand() && 'boolean';
    return kind;
  }

  #comparison(): Kind | null {
    const leftStart = this.#at;
    const left = this.#union();
    const operator = this.#token();
    if (left === null || operator?.kind !== 'symbol' || !COMPARISONS.has(operator.text)) return left;
    const leftEnd = this.#at - 1;
    this.#at++;
    const rightStart = this.#at;
    const right = this.#union();
    if (right === null) return null;
    const alike = comparedAlike(left, right, operator.text);
    if (alike === null) return null;
    if (alike.guardLeft && !this.#guard(leftStart, leftEnd, 'number')) return null;
    if (alike.guardRight && !this.#guard(rightStart, this.#at - 1, 'number')) return null;
    return 'boolean';
  }

  #union(): Kind | null {
    let kind = this.#operand();
    while (kind !== null && this.#isSymbol('|')) {
      this.#at++;
      const next = this.#operand();
      kind = kind === 'path' && next === 'path' ? 'path' : null;
    }
    return kind;
  }

  #operand(): Kind | null {
    const token = this.#token();
    if (token === undefined) return null;
    if (token.kind === 'string') {
      this.#at++;
      return token.escaped ? null : 'string';
    }
    if (token.kind === 'number') {
      this.#at++;
      return token.plain ? 'number' : null;
    }
    if (this.#isSymbol('(')) {
      this.#at++;
      const inner = this.#or();
      if (inner === null || !this.#isSymbol(')')) return null;
      this.#at++;
      const continued = this.#isSymbol('/') || this.#isSymbol('//') || this.#isSymbol('[');
      if (!continued) return inner;
      // `(a | b)/c`, `(a | b)[1]`: a filter expression of nodes, alike in both languages.
      if (inner !== 'path' || !this.#predicates()) return null;
      if (this.#isSymbol('/') || this.#isSymbol('//')) {
        this.#at++;
        return this.#relativePath() ? 'path' : null;
      }
      return 'path';
    }
    if (token.kind === 'name' && token.before === '(' && !KIND_TESTS.has(token.local)) return this.#call();
    return this.#path() ? 'path' : null;
  }

  #call(): Kind | null {
    const token = this.#token() as Token & { kind: 'name' };
    if (token.prefix !== null && token.prefix !== 'fn') return null;
    const known = Object.hasOwn(FUNCTIONS, token.local) ? FUNCTIONS[token.local] : undefined;
    if (known === undefined) return null;
    const nameIndex = this.#at;
    this.#at += 2;
    const args: { kind: Kind; start: number; end: number }[] = [];
    if (!this.#isSymbol(')')) {
      for (;;) {
        const start = this.#at;
        const kind = this.#or();
        if (kind === null) return null;
        args.push({ kind, start, end: this.#at - 1 });
        if (!this.#isSymbol(',')) break;
        this.#at++;
      }
    }
    if (!this.#isSymbol(')')) return null;
    this.#at++;
    const least = known.args.length - (known.optional ?? 0);
    if (args.length < least || (args.length > known.args.length && !known.rest)) return null;
    for (const [index, arg] of args.entries()) {
      const wanted = known.args[Math.min(index, known.args.length - 1)];
      if ((wanted === 'path' || wanted === 'node') && arg.kind !== 'path') return null;
      // XPath 3.1 refuses a number or a boolean where a string is wanted.
      if (wanted === 'string' && (arg.kind === 'number' || arg.kind === 'boolean')) return null;
      const single = wanted === 'node' || wanted === 'string';
      if (single && arg.kind === 'path' && !this.#guard(arg.start, arg.end, 'single')) return null;
    }
    const close = this.#at - 1;
    if (token.local === 'ends-with') {
      const [text, suffix] = args.map((arg) => this.#text(arg.start, arg.end));
      for (const index of [...this.#replaced.keys()]) if (index >= nameIndex) this.#replaced.delete(index);
      this.#replaced.set(nameIndex, {
        last: close,
        text: `(substring(${text}, string-length(${text}) - string-length(${suffix}) + 1) = ${suffix})`,
      });
    } else if (known.as !== undefined || token.prefix !== null)
      this.#replaced.set(nameIndex, { last: nameIndex, text: known.as ?? token.local });
    return known.result;
  }

  /**
   * A location path: an optional `/` or `//`, then steps joined by `/` or `//`. True when one
   * was read to its end.
   */
  #path(): boolean {
    if (this.#isSymbol('/') || this.#isSymbol('//')) {
      this.#absolute = true;
      this.#at++;
    }
    return this.#relativePath();
  }

  #relativePath(): boolean {
    for (;;) {
      if (!this.#step()) return false;
      if (!this.#isSymbol('/') && !this.#isSymbol('//')) return true;
      this.#at++;
    }
  }

  #step(): boolean {
    if (this.#isSymbol('.') || this.#isSymbol('..')) {
      this.#at++;
      return !this.#isSymbol('[');
    }
    if (this.#isSymbol('@')) this.#at++;
    else {
      const axis = this.#token();
      if (axis?.kind === 'name' && axis.prefix === null && this.#isSymbol('::', 1)) {
        if (!AXES.has(axis.local)) return false;
        this.#at += 2;
      }
    }
    return this.#nodeTest() && this.#predicates();
  }

  #predicates(): boolean {
    while (this.#isSymbol('[')) {
      this.#at++;
      this.#predicateDepth++;
      const inner = this.#or();
      this.#predicateDepth--;
      if (inner === null || !this.#isSymbol(']')) return false;
      this.#at++;
    }
    return true;
  }

  #nodeTest(): boolean {
    const token = this.#token();
    if (token?.kind !== 'name') return false;
    if (token.before === '(') {
      if (token.prefix !== null || !KIND_TESTS.has(token.local) || !this.#isSymbol(')', 2)) return false;
      this.#at += 3;
      return true;
    }
    if (token.before !== '' && ':#{'.includes(token.before)) return false;
    if (token.prefix !== null && token.prefix !== 'xml' && !Object.hasOwn(this.#namespaces, token.prefix))
      return false;
    this.#at++;
    return true;
  }

  /**
   * Adds the guard for the path in tokens [first, last]: `number`, a value libxml2 reads as NaN
   * (XPath 3.1 refuses it, or reads `INF` or `1e3`); `single`, more than one node (XPath 3.1's
   * type error where one string is wanted). Not inside a predicate, whose context is another node.
   */
  #guard(first: number, last: number, what: 'number' | 'single'): boolean {
    if (this.#predicateDepth > 0) return false;
    const path = this.#text(first, last);
    this.#guards.push(what === 'number' ? `(${path})[number(.) != number(.)]` : `count(${path}) > 1`);
    return true;
  }
}
