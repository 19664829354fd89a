import { MAX_XPATH_NESTING } from '../../../limits.js';
import { type ComparedOperand, comparedAlike } from '../../libxml2/xpath-comparison.js';
import { lex, literalAlike, type Token } from '../../libxml2/xpath31-lex.js';

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
  /**
   * Guards for what a predicate reads, whose context is not the test's: each asks the whole
   * document (`//cac:TaxScheme[count(cbc:ID) > 1]`), more than the nodes the predicate sees, so
   * true where any such node could answer differently. The same for every context node.
   */
  documentGuards: string[];
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
 * The most operators (comparisons, `and`, `or`, `|`, commas) and bracket depth a test taken may
 * have: libxml2 compiles and evaluates them by recursion on its small stack, where ~4,500 flat
 * operators corrupt it (docs/security-model.md). A larger test stays with fontoxpath, as before.
 * EN 16931's largest taken: 25 operators, 8 deep. The depth leaves room for the guards' and the
 * batch's own brackets (xpath1-routed.ts).
 */
const MAX_OPERATORS_TAKEN = 64;
const MAX_NESTING_TAKEN = MAX_XPATH_NESTING - 8;
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
  'upper-case': { args: ['string'], result: 'string' },
  'lower-case': { args: ['string'], result: 'string' },
};

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** Every ASCII character but `'` (removed by its own translate): what is left is not ASCII. */
const ASCII_BUT_APOSTROPHE = `\t\n\r !"#$%&()*+,-./0123456789:;<=>?@${UPPER}[\\]^_\`${LOWER}{|}~`;
/** True for a value with a character outside ASCII, where `upper-case` and `translate` differ. */
const NOT_ASCII = `translate(translate(., "'", ''), '${ASCII_BUT_APOSTROPHE}', '') != ''`;
/** The texts XPath 3.1 casts to xs:boolean, by value. */
const TRUE_TEXTS = ["normalize-space(.) = 'true'", "normalize-space(.) = '1'"];
const FALSE_TEXTS = ["normalize-space(.) = 'false'", "normalize-space(.) = '0'"];

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
  if (tokens === null || tokens.length === 0 || !small(tokens)) return null;
  const reader = new TestReader(test, tokens, namespaces);
  return reader.read();
}

function small(tokens: readonly Token[]): boolean {
  let depth = 0;
  let operators = 0;
  for (const token of tokens) {
    if (token.kind === 'symbol' && '([{'.includes(token.text)) {
      if (++depth > MAX_NESTING_TAKEN) return false;
    } else if (token.kind === 'symbol' && ')]}'.includes(token.text)) depth--;
    const operator =
      (token.kind === 'symbol' &&
        (COMPARISONS.has(token.text) || token.text === '|' || token.text === ',')) ||
      (token.kind === 'name' && token.prefix === null && (token.local === 'and' || token.local === 'or'));
    if (operator && ++operators > MAX_OPERATORS_TAKEN) return false;
  }
  return true;
}

class TestReader {
  #at = 0;
  readonly #test: string;
  readonly #tokens: Token[];
  readonly #namespaces: Record<string, string>;
  readonly #guards: string[] = [];
  readonly #documentGuards: string[] = [];
  /** The node test of each predicate's step being read, innermost last (null: not a named step). */
  readonly #contexts: (string | null)[] = [];
  /** The node test of the last step read, for the predicates and function steps after it. */
  #lastStep: string | null = null;
  /** A path ending in a function step (`a/normalize-space(b)`), just read: only a comparison takes it. */
  #functionStep: { start: number; slash: number; call: number; result: Kind } | null = null;
  /** Token ranges XPath 1.0 writes otherwise: first index → the last and the replacement. */
  readonly #replaced = new Map<number, { last: number; text: string }>();
  #absolute = false;

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
      documentGuards: [...new Set(this.#documentGuards)],
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
    const leftStep = this.#takeFunctionStep();
    const operator = this.#token();
    if (left === null || operator?.kind !== 'symbol' || !COMPARISONS.has(operator.text))
      return leftStep === null ? left : null;
    const leftEnd = this.#at - 1;
    this.#at++;
    const rightStart = this.#at;
    const right = this.#union();
    const rightStep = this.#takeFunctionStep();
    if (right === null) return null;
    const last = this.#at - 1;
    if (leftStep !== null || rightStep !== null) {
      return this.#functionStepCompared(
        leftStep,
        rightStep,
        { leftStart, leftEnd, rightStart, last },
        operator.text,
      );
    }
    const literal = (start: number, end: number) => {
      const token = this.#tokens[start];
      return end === start + 2 && token?.kind === 'name' && ['true', 'false'].includes(token.local)
        ? token.local === 'true'
        : null;
    };
    const leftLiteral = literal(leftStart, leftEnd);
    const rightLiteral = literal(rightStart, last);
    if (left === 'path' && rightLiteral !== null)
      return this.#comparedWithBoolean(leftStart, leftEnd, rightLiteral, operator.text, last);
    if (right === 'path' && leftLiteral !== null)
      return this.#comparedWithBoolean(rightStart, last, leftLiteral, operator.text, last, leftStart);
    const alike = comparedAlike(left, right, operator.text);
    if (alike === null) return null;
    if (alike.guardLeft && !this.#guard(leftStart, leftEnd, 'number')) return null;
    if (alike.guardRight && !this.#guard(rightStart, this.#at - 1, 'number')) return null;
    return 'boolean';
  }

  /**
   * `P = true()`, `P != false()`: XPath 3.1 casts each node's text to xs:boolean (refusing any
   * other text than true, false, 1, 0), XPath 1.0 would make P a boolean. Written as the nodes
   * whose text is the value compared, guarded for texts XPath 3.1 refuses.
   */
  #comparedWithBoolean(
    pathStart: number,
    pathEnd: number,
    value: boolean,
    operator: string,
    last: number,
    first = pathStart,
  ): Kind | null {
    if (operator !== '=' && operator !== '!=') return null;
    const path = this.#text(pathStart, pathEnd);
    const wanted = value === (operator === '=') ? TRUE_TEXTS : FALSE_TEXTS;
    const refused = `(${path})[not(${[...TRUE_TEXTS, ...FALSE_TEXTS].join(' or ')})]`;
    if (!this.#guardWith(refused)) return null;
    for (const index of [...this.#replaced.keys()])
      if (index >= first && index <= last) this.#replaced.delete(index);
    this.#replaced.set(first, { last, text: `boolean((${path})[${wanted.join(' or ')}])` });
    return 'boolean';
  }

  /**
   * `P/f(…) = 'text'`: XPath 3.1 compares each value of f on P's nodes; the same as the nodes of
   * P on which f's value compares, `P[f(…) = 'text']`, when the other side is a literal.
   */
  #functionStepCompared(
    leftStep: { start: number; slash: number; call: number; result: Kind } | null,
    rightStep: { start: number; slash: number; call: number; result: Kind } | null,
    { leftStart, leftEnd, rightStart, last }: Record<'leftStart' | 'leftEnd' | 'rightStart' | 'last', number>,
    operator: string,
  ): Kind | null {
    const step = (leftStep ?? rightStep) as NonNullable<typeof leftStep>;
    if (leftStep !== null && rightStep !== null) return null;
    const [otherStart, otherEnd] = leftStep !== null ? [rightStart, last] : [leftStart, leftEnd];
    const other = this.#tokens[otherStart];
    if (otherStart !== otherEnd || (other?.kind !== 'string' && other?.kind !== 'number')) return null;
    const otherKind = other.kind === 'string' ? 'string' : 'number';
    const alike = comparedAlike(step.result, otherKind, operator);
    if (alike === null || alike.guardLeft || alike.guardRight) return null;
    const path = this.#text(step.start, step.slash - 1);
    const call = this.#text(step.call, leftStep !== null ? leftEnd : last);
    const literal = this.#text(otherStart, otherEnd);
    const predicate = leftStep !== null ? `${call} ${operator} ${literal}` : `${literal} ${operator} ${call}`;
    const first = leftStart;
    for (const index of [...this.#replaced.keys()])
      if (index >= first && index <= last) this.#replaced.delete(index);
    this.#replaced.set(first, { last, text: `boolean(${path}[${predicate}])` });
    return 'boolean';
  }

  #takeFunctionStep() {
    const step = this.#functionStep;
    this.#functionStep = null;
    return step;
  }

  #union(): Kind | null {
    let kind = this.#operand();
    while (kind !== null && this.#isSymbol('|')) {
      if (this.#takeFunctionStep() !== null) return null;
      this.#at++;
      const next = this.#operand();
      kind = kind === 'path' && next === 'path' ? 'path' : null;
    }
    return kind;
  }

  #operand(): Kind | null {
    const token = this.#token();
    if (token === undefined) return null;
    const literal = literalAlike(token);
    if (literal !== undefined) {
      this.#at++;
      return literal;
    }
    if (this.#isSymbol('(')) {
      const open = this.#at++;
      const inner = this.#or();
      if (inner === null || !this.#isSymbol(')')) return null;
      this.#at++;
      const continued = this.#isSymbol('/') || this.#isSymbol('//') || this.#isSymbol('[');
      if (!continued) return inner;
      // `(a | b)/c`, `(a | b)[1]`: a filter expression of nodes, alike in both languages.
      this.#lastStep = null;
      if (inner !== 'path' || this.#functionStep !== null || !this.#predicates()) return null;
      if (this.#isSymbol('/') || this.#isSymbol('//')) {
        this.#at++;
        return this.#relativePath(open) ? 'path' : null;
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
    if (token.local === 'upper-case' || token.local === 'lower-case') {
      // Alike for ASCII text: a path's nodes are guarded for any other character, a literal read.
      const [arg] = args as [{ kind: Kind; start: number; end: number }];
      const text = this.#text(arg.start, arg.end);
      if (arg.kind === 'string') {
        const literal = this.#tokens[arg.start];
        if (
          arg.start !== arg.end ||
          literal?.kind !== 'string' ||
          [...text].some((char) => (char.codePointAt(0) as number) > 0x7f)
        )
          return null;
      } else if (!this.#guardWith(`(${text})[${NOT_ASCII}]`)) return null;
      const [from, to] = token.local === 'upper-case' ? [LOWER, UPPER] : [UPPER, LOWER];
      for (const index of [...this.#replaced.keys()]) if (index >= nameIndex) this.#replaced.delete(index);
      this.#replaced.set(nameIndex, { last: close, text: `translate(${text}, '${from}', '${to}')` });
    } else if (token.local === 'ends-with') {
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
    const start = this.#at;
    if (this.#isSymbol('/') || this.#isSymbol('//')) {
      this.#absolute = true;
      this.#at++;
    }
    return this.#relativePath(start);
  }

  /** Steps joined by `/` or `//`, of the path whose first token is `start`. */
  #relativePath(start: number): boolean {
    for (;;) {
      if (!this.#step()) return false;
      if (!this.#isSymbol('/') && !this.#isSymbol('//')) return true;
      this.#at++;
      const next = this.#token();
      if (
        next?.kind === 'name' &&
        next.before === '(' &&
        !KIND_TESTS.has(next.local) &&
        this.#isSymbol('/', -1)
      )
        return this.#functionStepAfter(start);
    }
  }

  /** `P/f(…)` as the path's last step, f's arguments read on each of P's nodes. */
  #functionStepAfter(start: number): boolean {
    const slash = this.#at - 1;
    const call = this.#at;
    this.#contexts.push(this.#lastStep);
    const result = this.#call();
    this.#contexts.pop();
    if (
      result === null ||
      result === 'path' ||
      this.#isSymbol('/') ||
      this.#isSymbol('//') ||
      this.#isSymbol('[')
    )
      return false;
    this.#functionStep = { start, slash, call, result };
    return true;
  }

  #step(): boolean {
    this.#lastStep = null;
    if (this.#isSymbol('.') || this.#isSymbol('..')) {
      this.#at++;
      return !this.#isSymbol('[');
    }
    let attribute = false;
    if (this.#isSymbol('@')) {
      attribute = true;
      this.#at++;
    } else {
      const axis = this.#token();
      if (axis?.kind === 'name' && axis.prefix === null && this.#isSymbol('::', 1)) {
        if (!AXES.has(axis.local)) return false;
        attribute = axis.local === 'attribute';
        this.#at += 2;
      }
    }
    const test = this.#at;
    if (!this.#nodeTest()) return false;
    const name = this.#text(test, this.#at - 1);
    this.#lastStep = attribute ? `@${name}` : name;
    return this.#predicates();
  }

  #predicates(): boolean {
    const step = this.#lastStep;
    while (this.#isSymbol('[')) {
      this.#at++;
      this.#contexts.push(step);
      const inner = this.#or();
      this.#contexts.pop();
      if (inner === null || !this.#isSymbol(']')) return false;
      this.#at++;
    }
    this.#lastStep = step;
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
   * type error where one string is wanted).
   */
  #guard(first: number, last: number, what: 'number' | 'single'): boolean {
    const path = this.#text(first, last);
    return this.#guardWith(what === 'number' ? `(${path})[number(.) != number(.)]` : `count(${path}) > 1`);
  }

  /**
   * Adds a guard read on the test's context node; inside a predicate or a function step, on
   * every node of the document its step names instead (false where it names none).
   */
  #guardWith(guard: string): boolean {
    if (this.#contexts.length === 0) {
      this.#guards.push(guard);
      return true;
    }
    const step = this.#contexts[this.#contexts.length - 1];
    if (step === null || step === undefined) return false;
    this.#documentGuards.push(`//${step}[${guard}]`);
    return true;
  }
}
