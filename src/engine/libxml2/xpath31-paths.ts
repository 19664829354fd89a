/**
 * Which absolute paths of an XPath 3.1 expression libxml2 can select instead of fontoxpath
 * (docs/adr/0055-xpath-3-1-paths-selected-by-libxml2.md). A path such as `//x:Rule/@id` or
 * `//item[@type = 'x']` means the same in XPath 1.0 and 3.1; libxml2 walks its own tree without
 * a JavaScript wrapper per node reached, where fontoxpath reaches every node of the document
 * through the view. The expression is rewritten with a variable in the path's place, bound to
 * the nodes libxml2 selected.
 *
 * Only what is known to mean the same is taken: steps on the child and descendant axes (`/`,
 * `//`) and attributes, by name, prefix:name (a bound prefix) or `*`; predicates of paths,
 * string literals, numbers, `=`, `!=`, `and`, `or`, `not()` and parentheses. A path compared
 * with a number carries a guard: libxml2 reads a value that is not a number as NaN, XPath 3.1
 * raises FORG0001 (or reads `INF`), so when a compared value is not a number to libxml2 the
 * expression is evaluated unchanged. Nothing inside braces (an inline function's body, a map)
 * is taken: XPath 3.1 has no context item there.
 */

import { type ComparedOperand, comparedAlike } from './xpath-comparison.js';
import { lex, literalAlike, type Token } from './xpath31-lex.js';
import { type PerItemExpression, readPerItem } from './xpath31-per-item-plan.js';

/** A path libxml2 selects, and the XPath 1.0 tests that must all be false for its answer to hold. */
export interface DelegatedPath {
  path: string;
  guards: string[];
  /**
   * Every use of the path is `distinct-values(path)`: only its nodes' distinct texts are read,
   * so no node needs a wrapper (`distinct-texts`).
   */
  textsOnly: boolean;
  /** Read only by per-item computations (`per-item-<type>`): its nodes need no wrapper. */
  pointersOnly?: true;
}

/**
 * The expression with `Q{SELECTED_NAMESPACE}selected(n)` in the place of the nth path, a
 * function the view registers to return the nodes libxml2 selected for it.
 */
export interface PathPlan {
  expression: string;
  paths: DelegatedPath[];
  /** `Q{SELECTED_NAMESPACE}per-item-<type>(n)`: the nth, a computation over a selection's nodes. */
  perItem?: PerItem[];
}

/** A computation for each node of the selection `path` (1-based), xpath31-per-item-plan.ts. */
export interface PerItem {
  path: number;
  expression: PerItemExpression;
}

export const SELECTED_NAMESPACE = 'urn:oxml-mcp:xpath31-selected';

const COMPARISONS = new Set(['=', '!=', '<', '<=', '>', '>=']);
/** Symbols after which an expression starts, so `/` begins an absolute path. */
const OPERAND_AFTER = new Set(['(', '[', ',', '{', ...COMPARISONS, ':=', '||', '|', '!', '+', '-']);
/** Value comparisons and logic: a predicate with one of them at its top is a boolean. */
const BOOLEAN_OPERATORS = new Set(['and', 'or', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'is']);
/** Functions whose value is a boolean, so a predicate of one call is never positional. */
const BOOLEAN_FUNCTIONS = new Set([
  'contains',
  'starts-with',
  'ends-with',
  'matches',
  'exists',
  'empty',
  'not',
  'boolean',
  'lang',
  'deep-equal',
  'contains-token',
  'has-children',
]);
/** Keywords after which an expression starts (when an operand precedes them: else they are names). */
const OPERAND_AFTER_KEYWORD = new Set([
  'return',
  'in',
  'then',
  'else',
  'satisfies',
  'and',
  'or',
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'to',
  'union',
  'intersect',
  'except',
]);

/**
 * The plan for `expression`, or null when no path can be delegated (or the expression is one
 * this planner does not read: an unclosed literal or comment).
 */
export function planPaths(expression: string, namespaces: Record<string, string>): PathPlan | null {
  const tokens = lex(expression);
  if (tokens === null) return null;
  const reader = new PathReader(expression, tokens, namespaces);
  const paths = new Map<string, DelegatedPath & { number: number }>();
  /** What a use of the path reads: its distinct texts, its nodes' pointers, or its nodes. */
  const noteUse = (found: FoundPath, reads: 'texts' | 'pointers' | 'nodes'): number => {
    const known = paths.get(found.path);
    if (known !== undefined) {
      known.textsOnly &&= reads === 'texts';
      if (reads !== 'pointers') delete known.pointersOnly;
      return known.number;
    }
    const number = paths.size + 1;
    const textsOnly = reads === 'texts';
    paths.set(found.path, {
      number,
      path: found.path,
      guards: found.guards,
      textsOnly,
      ...(reads === 'pointers' && { pointersOnly: true as const }),
    });
    return number;
  };
  const pieces: string[] = [];
  const perItem: PerItem[] = [];
  let copied = 0;
  let braces = 0;
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index] as Token;
    if (token.kind === 'symbol' && token.text === '{') braces++;
    if (token.kind === 'symbol' && token.text === '}') braces--;
    if (braces > 0 || !isSlash(token) || !startsOperand(tokens, index)) continue;
    const found = reader.read(index);
    if (found === null) continue;
    // `path ! number(price)`, `for $r in path return …`: computed from libxml2's structs.
    const computed = readPerItem(expression, tokens, index, found.last, namespaces);
    if (computed !== null) {
      perItem.push({ path: noteUse(found, 'pointers'), expression: computed.expression });
      pieces.push(
        expression.slice(copied, (tokens[computed.first] as Token).start),
        `Q{${SELECTED_NAMESPACE}}per-item-${computed.type}(${perItem.length})`,
      );
      copied = (tokens[computed.last] as Token).end;
      index = computed.last;
      continue;
    }
    if (CASTING_AGGREGATES.has(soleArgumentOf(tokens, index, found.last) ?? '')) {
      perItem.push({ path: noteUse(found, 'pointers'), expression: { kind: 'untyped', path: [] } });
      pieces.push(
        expression.slice(copied, token.start),
        `Q{${SELECTED_NAMESPACE}}per-item-double(${perItem.length})`,
      );
      copied = (tokens[found.last] as Token).end;
      index = found.last;
      continue;
    }
    if (isDistinctValuesOf(tokens, index, found.last) && isCountOfCall(tokens, index - 2, found.last + 1)) {
      // count(distinct-values(path)): how many distinct texts, with none handed to fontoxpath.
      const number = noteUse(found, 'texts');
      pieces.push(
        expression.slice(copied, (tokens[index - 4] as Token).start),
        `Q{${SELECTED_NAMESPACE}}distinct-count(${number})`,
      );
      copied = (tokens[found.last + 2] as Token).end;
      index = found.last + 2;
      continue;
    }
    if (isDistinctValuesOf(tokens, index, found.last)) {
      // distinct-values(path): each distinct text once, in the order of its first node, as
      // xs:untypedAtomic (what atomizing a node of an untyped document gives).
      const number = noteUse(found, 'texts');
      pieces.push(
        expression.slice(copied, (tokens[index - 2] as Token).start),
        `(Q{${SELECTED_NAMESPACE}}distinct-texts(${number}))`,
      );
      copied = (tokens[found.last + 1] as Token).end;
      index = found.last + 1;
      continue;
    }
    const number = noteUse(found, 'nodes');
    const left = comparedNodes(tokens, index, found.last);
    const keyed = left === null ? keyEqualsVariable(tokens, found.last + 1) : null;
    if (keyed !== null) {
      const variable = expression.slice((keyed.variable as Token).start, (keyed.variable as Token).end);
      pieces.push(
        expression.slice(copied, token.start),
        `Q{${SELECTED_NAMESPACE}}where(${number}, '${keyed.key}', ${variable})`,
      );
      copied = (tokens[keyed.last] as Token).end;
      index = keyed.last;
      continue;
    }
    if (left === null) {
      pieces.push(expression.slice(copied, token.start), `(Q{${SELECTED_NAMESPACE}}selected(${number}))`);
    } else {
      const start = (tokens[left] as Token).start;
      const operand = expression.slice(start, (tokens[index - 2] as Token).end);
      pieces.push(
        expression.slice(copied, start),
        `Q{${SELECTED_NAMESPACE}}equals-any((${operand}) ! string(.), ${number})`,
      );
    }
    copied = (tokens[found.last] as Token).end;
    index = found.last;
  }
  if (paths.size === 0) return null;
  pieces.push(expression.slice(copied));
  return {
    expression: pieces.join(''),
    paths: [...paths.values()].map(({ number: _, ...path }) => path),
    ...(perItem.length > 0 && { perItem }),
  };
}

/**
 * `[L = //path]`: a step's predicate comparing nodes `L` (`.`, `@a`, `a/b`: nodes, since the
 * context is the step's node) with the nodes libxml2 selects. Both sides are untyped, so XPath
 * 3.1 compares their texts; `equals-any` looks each of L's up in the set of the selection's
 * texts, built once per call, where fontoxpath compared every pair for every context node. The
 * index of L's first token, or null for any other comparison.
 */
function comparedNodes(tokens: Token[], pathStart: number, pathLast: number): number | null {
  const after = tokens[pathLast + 1];
  const ends =
    isSymbol(after, ']') ||
    (after?.kind === 'name' && after.prefix === null && ['and', 'or'].includes(after.local));
  if (!ends || !isSymbol(tokens[pathStart - 1], '=')) return null;
  let start = pathStart - 1;
  while (start > 0) {
    const token = tokens[start - 1] as Token;
    const inOperand =
      (token.kind === 'name' && token.before !== '(' && !['and', 'or'].includes(token.local)) ||
      (token.kind === 'symbol' && ['@', '/', '//', '.'].includes(token.text));
    if (!inOperand) break;
    start--;
  }
  if (start === pathStart - 1 || isSlash(tokens[start]) || isSlash(tokens[pathStart - 2])) return null;
  // The `[` must open a predicate of a step (after its name test or an earlier predicate).
  let open = start - 1;
  if (!isSymbol(tokens[open], '[')) return null;
  for (;;) {
    const before = tokens[open - 1];
    if (before?.kind === 'name') return start;
    if (!isSymbol(before, ']')) return null;
    let depth = 0;
    let at = open - 1;
    for (; at >= 0; at--) {
      const token = tokens[at] as Token;
      if (isSymbol(token, ']')) depth++;
      else if (isSymbol(token, '[') && --depth === 0) break;
    }
    if (at < 0) return null;
    open = at;
  }
}

/**
 * `distinct-values(path)`, the path its only argument: its nodes' values are all
 * xs:untypedAtomic, equal when their texts are, so each distinct text, in the order of its first
 * node, is the answer; `distinct-texts` finds them with a `Set`, read from libxml2's structs,
 * where fontoxpath wrapped, atomized and keyed every node.
 */
function isDistinctValuesOf(tokens: Token[], pathStart: number, pathLast: number): boolean {
  return soleArgumentOf(tokens, pathStart, pathLast) === 'distinct-values';
}

/** Whether the call whose name is `name` and whose `)` is `close` is the sole argument of `count`. */
function isCountOfCall(tokens: Token[], name: number, close: number): boolean {
  return soleArgumentOf(tokens, name, close) === 'count';
}

/**
 * `sum(path)`, `avg`, `min`, `max`: each of these casts an untyped value to xs:double, so the
 * path's nodes' texts cast to xs:double are the argument, computed from the structs as a
 * per-item value of the node itself (xpath31-per-item.ts), where fontoxpath wrapped and atomized
 * every node; a text that is not a plain number leaves the expression as written.
 */
const CASTING_AGGREGATES = new Set(['sum', 'avg', 'min', 'max']);

/** The function (in no namespace or `fn:`) whose one argument is the path, or null. */
function soleArgumentOf(tokens: Token[], pathStart: number, pathLast: number): string | null {
  const name = tokens[pathStart - 2];
  return isSymbol(tokens[pathStart - 1], '(') &&
    isSymbol(tokens[pathLast + 1], ')') &&
    name?.kind === 'name' &&
    (name.prefix === null || name.prefix === 'fn') &&
    name.before === '('
    ? name.local
    : null;
}

/**
 * `[K = $v]` (or `[$v = K]`) right after a selected path, where the key K is an attribute `@name`,
 * the node itself `.`, or a child element `name`, names in no namespace: the grouping idiom's
 * `count(//r[@k = $k])`, `count(//tag[. = $t])`, `//record[category = $c]`. `where` answers it
 * from an index of the selection by that key (`@name`, `.` or `name`), built once per call, where
 * fontoxpath tested every node for every key. Only for text keys: `where` hands anything else
 * back to evaluation as written.
 */
function keyEqualsVariable(
  tokens: Token[],
  open: number,
): { key: string; variable: Token; last: number } | null {
  if (!isSymbol(tokens[open], '[')) return null;
  const keyAt = (at: number): { key: string; end: number } | null => {
    const token = tokens[at];
    const next = tokens[at + 1];
    if (isSymbol(token, '.')) return { key: '.', end: at + 1 };
    if (isSymbol(token, '@') && next?.kind === 'name' && next.prefix === null && next.local !== '*')
      return { key: `@${next.local}`, end: at + 2 };
    if (token?.kind === 'name' && token.prefix === null && token.local !== '*' && !isSymbol(next, '('))
      return { key: token.local, end: at + 1 };
    return null;
  };
  const variableFirst = tokens[open + 1]?.kind === 'variable';
  const keyed = keyAt(variableFirst ? open + 3 : open + 1);
  if (keyed === null) return null;
  const variable = tokens[variableFirst ? open + 1 : keyed.end + 1] as Token;
  const equals = variableFirst ? open + 2 : keyed.end;
  const close = variableFirst ? keyed.end : keyed.end + 2;
  if (variable?.kind !== 'variable' || !isSymbol(tokens[equals], '=') || !isSymbol(tokens[close], ']'))
    return null;
  return { key: keyed.key, variable, last: close };
}

function isSlash(token: Token | undefined): boolean {
  return token?.kind === 'symbol' && (token.text === '/' || token.text === '//');
}

function isSymbol(token: Token | undefined, text: string): boolean {
  return token?.kind === 'symbol' && token.text === text;
}

/** An operand ends with this token (so a keyword after it is an operator). */
function endsOperand(token: Token | undefined): boolean {
  if (token === undefined) return false;
  if (token.kind === 'symbol') return [')', ']', '}', '.', '..'].includes(token.text);
  return token.kind !== 'other';
}

function startsOperand(tokens: Token[], index: number): boolean {
  const previous = tokens[index - 1];
  if (previous === undefined) return true;
  if (previous.kind === 'symbol') return OPERAND_AFTER.has(previous.text);
  if (previous.kind === 'name' && previous.prefix === null && OPERAND_AFTER_KEYWORD.has(previous.local))
    return endsOperand(tokens[index - 2]);
  return false;
}

/** What a predicate's operand is, for the comparison rules. */
type Operand = ComparedOperand;

/** A path read from the tokens: its text, its last token, the guards its numeric comparisons need. */
interface FoundPath {
  path: string;
  last: number;
  guards: string[];
}

class PathReader {
  readonly #expression: string;
  readonly #tokens: Token[];
  readonly #namespaces: Record<string, string>;
  constructor(expression: string, tokens: Token[], namespaces: Record<string, string>) {
    this.#expression = expression;
    this.#tokens = tokens;
    this.#namespaces = namespaces;
  }

  /** The longest delegable path starting at the slash `first`, or null (no step). */
  read(first: number): FoundPath | null {
    let found: FoundPath | null = null;
    let at = first;
    const guards: string[] = [];
    while (isSlash(this.#tokens[at])) {
      const step = this.#nameTest(at + 1);
      if (step === null) break;
      let end = step;
      while (isSymbol(this.#tokens[end + 1], '[')) {
        const close = this.#closing(end + 1);
        if (close === null || !isSymbol(this.#tokens[close], ']')) return found;
        const prefix = this.#text(first, end);
        const stepGuards: string[] = [];
        if (!this.#safePredicate(end + 2, close, prefix, stepGuards)) {
          // A predicate that does not depend on the position filters the selection as it would
          // the step's nodes, parent by parent; any other ends the path before its step.
          return this.#positionFreeFrom(end + 1)
            ? { path: this.#text(first, end), last: end, guards: [...guards] }
            : found;
        }
        guards.push(...stepGuards);
        end = close;
      }
      found = { path: this.#text(first, end), last: end, guards: [...guards] };
      at = end + 1;
    }
    return found;
  }

  /** Whether the predicates from the `[` at `open` to the step's last are all position-free. */
  #positionFreeFrom(open: number): boolean {
    for (let at = open; isSymbol(this.#tokens[at], '['); ) {
      const close = this.#closing(at);
      if (close === null || !this.#positionFree(at + 1, close)) return false;
      at = close + 1;
    }
    return true;
  }

  /**
   * Whether the predicate in tokens [from, to) is true or false whatever its position: it calls
   * neither position() nor last(), and is a comparison, `and`/`or`, or a call of a function
   * whose value is a boolean.
   */
  #positionFree(from: number, to: number): boolean {
    let depth = 0;
    let boolean = false;
    for (let at = from; at < to; at++) {
      const token = this.#tokens[at] as Token;
      if (
        token.kind === 'name' &&
        token.before === '(' &&
        (token.local === 'position' || token.local === 'last')
      )
        return false;
      if (token.kind === 'symbol' && '([{'.includes(token.text)) depth++;
      else if (token.kind === 'symbol' && ')]}'.includes(token.text)) depth--;
      else if (depth === 0 && token.kind === 'symbol' && COMPARISONS.has(token.text)) boolean = true;
      else if (
        depth === 0 &&
        token.kind === 'name' &&
        token.prefix === null &&
        BOOLEAN_OPERATORS.has(token.local)
      )
        boolean = at > from;
    }
    const head = this.#tokens[from];
    const call = head?.kind === 'name' && head.before === '(' && BOOLEAN_FUNCTIONS.has(head.local);
    return boolean || (call && this.#closing(from + 1) === to - 1);
  }

  #text(first: number, last: number): string {
    return this.#expression.slice((this.#tokens[first] as Token).start, (this.#tokens[last] as Token).end);
  }

  /** The last token of a name test (`name`, `p:name`, `*`, `@name`) at `at`, or null. */
  #nameTest(at: number): number | null {
    const attribute = isSymbol(this.#tokens[at], '@');
    const token = this.#tokens[attribute ? at + 1 : at];
    if (token?.kind !== 'name') return null;
    // `name(`, `name::`, `name#1`, `map {`: a function call, an axis, a function reference.
    if (token.before !== '' && '(:#{'.includes(token.before)) return null;
    if (token.prefix !== null && token.prefix !== 'xml' && !Object.hasOwn(this.#namespaces, token.prefix))
      return null;
    return attribute ? at + 1 : at;
  }

  /** The bracket closing the one at `open` (null when none does). */
  #closing(open: number): number | null {
    let depth = 0;
    for (let at = open; at < this.#tokens.length; at++) {
      const token = this.#tokens[at] as Token;
      if (token.kind !== 'symbol') continue;
      if ('([{'.includes(token.text)) depth++;
      else if (')]}'.includes(token.text) && --depth === 0) return at;
    }
    return null;
  }

  /**
   * Whether the predicate in tokens [from, to) means the same in XPath 1.0 and 3.1; a comparison
   * of a path with a number adds its guard (`<prefix>/<path>[number(.) != number(.)]`).
   */
  #safePredicate(from: number, to: number, prefix: string, guards: string[]): boolean {
    const parser = new PredicateParser(this, from, to, prefix, guards);
    return parser.parse();
  }

  token(at: number): Token | undefined {
    return this.#tokens[at];
  }

  nameTest(at: number): number | null {
    return this.#nameTest(at);
  }

  text(first: number, last: number): string {
    return this.#text(first, last);
  }
}

/**
 * Recursive descent over a predicate: or / and / comparison / operand, where an operand is a
 * relative path (name tests, `@`, `.`, joined by `/` or `//`, no predicates), a literal, a
 * parenthesized predicate or `not(…)`.
 */
class PredicateParser {
  #at: number;
  readonly #reader: PathReader;
  readonly #to: number;
  readonly #prefix: string;
  readonly #guards: string[];
  constructor(reader: PathReader, from: number, to: number, prefix: string, guards: string[]) {
    this.#reader = reader;
    this.#at = from;
    this.#to = to;
    this.#prefix = prefix;
    this.#guards = guards;
  }

  parse(): boolean {
    const operand = this.#or();
    return operand !== null && this.#at === this.#to;
  }

  #or(): Operand | null {
    let operand = this.#and();
    while (operand !== null && this.#keyword('or')) operand = this.#and() && 'boolean';
    return operand;
  }

  #and(): Operand | null {
    let operand = this.#comparison();
    while (operand !== null && this.#keyword('and')) operand = this.#comparison() && 'boolean';
    return operand;
  }

  #comparison(): Operand | null {
    const leftStart = this.#at;
    const left = this.#operand();
    const token = this.#reader.token(this.#at);
    if (left === null || this.#at >= this.#to || token?.kind !== 'symbol' || !COMPARISONS.has(token.text))
      return left;
    const leftEnd = this.#at - 1;
    this.#at++;
    const rightStart = this.#at;
    const right = this.#operand();
    if (right === null) return null;
    const alike = comparedAlike(left, right, token.text);
    if (alike === null) return null;
    if (alike.guardLeft) this.#guard(leftStart, leftEnd);
    if (alike.guardRight) this.#guard(rightStart, this.#at - 1);
    return 'boolean';
  }

  #guard(first: number, last: number): void {
    let path = this.#reader.text(first, last);
    // `.` takes no predicate in XPath 1.0.
    if (path === '.') path = 'self::node()';
    else if (path.endsWith('/.')) path = `${path.slice(0, -1)}self::node()`;
    this.#guards.push(`${this.#prefix}/${path}[number(.) != number(.)]`);
  }

  #keyword(word: string): boolean {
    const token = this.#reader.token(this.#at);
    if (this.#at < this.#to && token?.kind === 'name' && token.prefix === null && token.local === word) {
      this.#at++;
      return true;
    }
    return false;
  }

  #operand(): Operand | null {
    if (this.#at >= this.#to) return null;
    const token = this.#reader.token(this.#at) as Token;
    const literal = literalAlike(token);
    if (literal !== undefined) {
      this.#at++;
      return literal;
    }
    if (isSymbol(token, '(')) {
      this.#at++;
      const inner = this.#or();
      if (inner === null || !isSymbol(this.#reader.token(this.#at), ')')) return null;
      this.#at++;
      return inner;
    }
    if (token.kind === 'name' && token.prefix === null && token.local === 'not' && token.before === '(') {
      this.#at += 2;
      if (this.#or() === null || !isSymbol(this.#reader.token(this.#at), ')')) return null;
      this.#at++;
      return 'boolean';
    }
    return this.#relativePath() ? 'path' : null;
  }

  #relativePath(): boolean {
    for (;;) {
      const token = this.#reader.token(this.#at);
      if (isSymbol(token, '.')) this.#at++;
      else {
        const last = this.#reader.nameTest(this.#at);
        if (last === null || last >= this.#to) return false;
        this.#at = last + 1;
      }
      if (this.#at >= this.#to || !isSlash(this.#reader.token(this.#at))) return true;
      this.#at++;
    }
  }
}

/**
 * Where each outermost absolute path of an expression starts and ends (`//a[b]/c`,
 * `/x/y(z)`), outside braces, with whether it names a variable: such a path selects the same
 * whatever the context item, so a caller evaluating the expression on many context nodes can
 * evaluate it once (Schematron's rules, ADR 0053). Null for an expression this lexer does not
 * read.
 */
export function absolutePaths(
  expression: string,
): { start: number; end: number; variables: boolean }[] | null {
  const tokens = lex(expression);
  if (tokens === null) return null;
  const found: { start: number; end: number; variables: boolean }[] = [];
  let braces = 0;
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index] as Token;
    if (isSymbol(token, '{')) braces++;
    if (isSymbol(token, '}')) braces--;
    if (braces > 0 || !isSlash(token) || !startsOperand(tokens, index)) continue;
    const last = pathEnd(tokens, index);
    if (last === null) continue;
    const variables = tokens.slice(index, last + 1).some((inner) => inner.kind === 'variable');
    found.push({ start: token.start, end: (tokens[last] as Token).end, variables });
    index = last;
  }
  return found;
}

/** The last token of the path whose first slash is `first`, or null where a step is not read. */
function pathEnd(tokens: Token[], first: number): number | null {
  let at = first;
  for (;;) {
    at = stepEnd(tokens, at + 1) ?? -1;
    if (at < 0) return null;
    while (isSymbol(tokens[at + 1], '[')) {
      at = closing(tokens, at + 1, '[', ']') ?? -1;
      if (at < 0) return null;
    }
    if (!isSlash(tokens[at + 1])) return at;
    at++;
  }
}

/** The last token of the step starting at `at`: a name test, `@name`, `axis::test`, a call, `(…)`, `.` or `..`. */
function stepEnd(tokens: Token[], at: number): number | null {
  const token = tokens[at];
  if (token === undefined) return null;
  if (isSymbol(token, '.') || isSymbol(token, '..')) return at;
  if (isSymbol(token, '(')) return closing(tokens, at, '(', ')');
  if (isSymbol(token, '@')) return tokens[at + 1]?.kind === 'name' ? stepEnd(tokens, at + 1) : null;
  if (token.kind !== 'name') return null;
  if (isSymbol(tokens[at + 1], '::')) return stepEnd(tokens, at + 2);
  if (isSymbol(tokens[at + 1], '(')) return closing(tokens, at + 1, '(', ')');
  return at;
}

/** The token closing the bracket `open` opens, or null. */
function closing(tokens: Token[], open: number, opening: string, closer: string): number | null {
  let depth = 0;
  for (let at = open; at < tokens.length; at++) {
    if (isSymbol(tokens[at], opening)) depth++;
    else if (isSymbol(tokens[at], closer) && --depth === 0) return at;
  }
  return null;
}
