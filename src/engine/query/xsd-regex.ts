import * as xspatternModule from 'xspattern';

/*
 * The one regular-expression engine of XPath 3.1 here: fn:matches, fn:replace and fn:tokenize
 * (with or without flags) all call it, through fontoxpath's patched functions
 * (scripts/fontoxpath-patches.ts; ADR 0048). Patterns are read by xspattern's parser, the XSD
 * regular-expression syntax with XPath's additions (`^`, `$`, reluctant quantifiers, `(?:…)`),
 * so `\p{Lu}`, `\i`, `[a-z-[aeiou]]` mean what XPath says and JavaScript-only syntax (`(?<=a)`) is
 * refused. Matching is a Pike VM (a thread per program state, advanced one character at a time):
 * time linear in the input times the pattern's size, never backtracking, with the match XPath
 * asks for (leftmost; among matches there, the first alternative and greedy or reluctant
 * quantifiers decide, as in Perl) and its groups for `$1` … `$9`.
 */

type Predicate = (codePoint: number) => boolean;
interface Quantifier {
  min: number;
  max: number | null;
  lazy?: true;
}
type Atom = { kind: 'predicate'; value: Predicate } | { kind: 'regexp'; value: Branch[]; capturing: boolean };
type Branch = Array<[Atom, Quantifier]>;

// The parser is exported by a patch; an unpatched xspattern (a resolution to its CommonJS file)
// must fail here rather than match with the wrong engine.
const parserFor = xspatternModule as {
  oxmlPatternParser?: (options: { language: 'xpath' }) => (pattern: string) => Branch[];
};
if (typeof parserFor.oxmlPatternParser !== 'function') {
  throw new Error('xsd-regex: xspattern was loaded without its patch (scripts/fontoxpath-patches.ts)');
}
const parse = parserFor.oxmlPatternParser({ language: 'xpath' });

/** States a pattern may compile to: `a{1,1750}b` takes 3,501, `[a-z]{1,5000}` 10,000. */
export const MAX_PATTERN_STATES = 100_000;
/** States the patterns kept for one call may hold in all; the cache is emptied after each call. */
const CACHE_STATES = 200_000;

const CHAR = 0;
const SPLIT = 1;
const JMP = 2;
const SAVE = 3;
const BOL = 4;
const EOL = 5;
const MATCH = 6;

/** A compiled pattern: parallel arrays, one entry per state. */
interface Program {
  op: Uint8Array;
  /** CHAR: index into `tests`; SPLIT: the preferred target; JMP: the target; SAVE: the slot. */
  x: Int32Array;
  /** SPLIT: the other target. */
  y: Int32Array;
  tests: Predicate[];
  /** Capture slots: 2 per group, group 0 the whole match. */
  slots: number;
  groups: number;
  multiline: boolean;
  /** Whether the pattern matches the empty string (FORX0003 for replace and tokenize). */
  matchesEmpty: boolean;
}

function fail(code: string, message: string): never {
  throw new Error(`${code}: ${message}`);
}

/** Each flag once, from `smixq` (FORX0001 otherwise). */
function readFlags(flags: string): Set<string> {
  const set = new Set<string>();
  for (const flag of flags) {
    if (!'smixq'.includes(flag))
      fail('FORX0001', `Invalid regular-expression flag "${flag}": use s, m, i, x or q.`);
    set.add(flag);
  }
  return set;
}

const META = new Set([...'\\|.-^?*+{}()[]$']);

/**
 * The pattern as the parser must read it under the flags: `q` escapes every metacharacter, `x`
 * drops white space outside character classes, `s` lets `.` match newlines too.
 */
function rewrite(pattern: string, flags: Set<string>): string {
  if (flags.has('q')) return [...pattern].map((char) => (META.has(char) ? `\\${char}` : char)).join('');
  if (!flags.has('x') && !flags.has('s')) return pattern;
  // `x` removes white space before the pattern is read, so `\ s` is `\s`.
  const dropped = (at: number, depth: number) =>
    depth === 0 && flags.has('x') && /[ \t\n\r]/.test(pattern[at] as string);
  let out = '';
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    if (dropped(i, depth)) continue;
    const char = pattern[i] as string;
    if (char === '\\') {
      let next = i + 1;
      while (next < pattern.length && dropped(next, depth)) next++;
      out += `\\${pattern[next] ?? ''}`;
      i = next;
      continue;
    }
    if (char === '[') depth++;
    else if (char === ']' && depth > 0) depth--;
    out += depth === 0 && char === '.' && flags.has('s') ? '[\\s\\S]' : char;
  }
  return out;
}

/** States the tree compiles to, for the bound, counted before anything is emitted. */
function sizeOf(branches: Branch[]): number {
  let size = branches.length - 1;
  for (const branch of branches) {
    for (const [atom, { min, max }] of branch) {
      const one = atom.kind === 'predicate' ? 1 : sizeOf(atom.value) + (atom.capturing ? 2 : 0);
      size += max === null ? one * Math.max(min, 1) + 2 : one * max + (max - min);
      if (size > MAX_PATTERN_STATES) return size;
    }
  }
  return size;
}

class Emitter {
  op: number[] = [];
  x: number[] = [];
  y: number[] = [];
  tests: Predicate[] = [];
  readonly #fold: boolean;
  readonly #groups: WeakMap<Atom, number>;
  constructor(fold: boolean, groups: WeakMap<Atom, number>) {
    this.#fold = fold;
    this.#groups = groups;
  }
  emit(op: number, x = 0, y = 0): number {
    this.op.push(op);
    this.x.push(x);
    this.y.push(y);
    return this.op.length - 1;
  }
  alternatives(branches: Branch[]): void {
    const jumps: number[] = [];
    branches.forEach((branch, index) => {
      const split = index < branches.length - 1 ? this.emit(SPLIT) : -1;
      if (split >= 0) this.x[split] = split + 1;
      for (const item of branch) this.item(item);
      if (split >= 0) {
        jumps.push(this.emit(JMP));
        this.y[split] = this.op.length;
      }
    });
    for (const jump of jumps) this.x[jump] = this.op.length;
  }
  item([atom, { min, max, lazy }]: [Atom, Quantifier]): void {
    for (let i = 0; i < min; i++) this.atom(atom);
    if (max === null) {
      const split = this.emit(SPLIT);
      this.atom(atom);
      this.emit(JMP, split);
      this.#prefer(split, split + 1, this.op.length, lazy);
      return;
    }
    const splits: number[] = [];
    for (let i = min; i < max; i++) {
      splits.push(this.emit(SPLIT));
      this.atom(atom);
    }
    for (const split of splits) this.#prefer(split, split + 1, this.op.length, lazy);
  }
  #prefer(split: number, body: number, skip: number, lazy: true | undefined): void {
    this.x[split] = lazy ? skip : body;
    this.y[split] = lazy ? body : skip;
  }
  atom(atom: Atom): void {
    if (atom.kind === 'regexp') {
      if (!atom.capturing) {
        this.alternatives(atom.value);
        return;
      }
      // A repeated group keeps its number: its copies write the same slots.
      const group = this.#groups.get(atom) as number;
      this.emit(SAVE, 2 * group);
      this.alternatives(atom.value);
      this.emit(SAVE, 2 * group + 1);
      return;
    }
    const test = atom.value;
    // The parser's `^` and `$` are tests for the two markers its own matcher puts around the
    // input (-1, -2), true for nothing else: here they are assertions.
    if (test(-1)) this.emit(BOL);
    else if (test(-2)) this.emit(EOL);
    else this.emit(CHAR, this.tests.push(this.#fold ? caseless(test) : test) - 1);
  }
}

/** `i`: a character matches when it, or a character of the same case-variant set, does. */
function caseless(test: Predicate): Predicate {
  return (codePoint) => {
    if (test(codePoint)) return true;
    const char = String.fromCodePoint(codePoint);
    const lower = char.toLowerCase();
    const upper = char.toUpperCase();
    // Both ways round: the Kelvin sign's lower case is k, whose upper case is K.
    for (const variant of [lower, upper, lower.toUpperCase(), upper.toLowerCase()]) {
      if (variant !== char && [...variant].length === 1 && test(variant.codePointAt(0) as number))
        return true;
    }
    return false;
  };
}

/** Numbers capturing groups in the order of their opening parentheses, as the pattern reads. */
function numberGroups(branches: Branch[], numbers = new WeakMap<Atom, number>(), next = { value: 0 }) {
  for (const branch of branches) {
    for (const [atom] of branch) {
      if (atom.kind !== 'regexp') continue;
      if (atom.capturing) numbers.set(atom, ++next.value);
      numberGroups(atom.value, numbers, next);
    }
  }
  return { numbers, count: next.value };
}

function compile(pattern: string, flagText: string): Program {
  const flags = readFlags(flagText);
  let tree: Branch[];
  try {
    tree = parse(rewrite(pattern, flags));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    fail('FORX0002', `Invalid regular expression (XSD syntax, as XPath reads it): ${reason}`);
  }
  const size = sizeOf(tree);
  if (size > MAX_PATTERN_STATES) {
    fail(
      'FORX0002',
      `The regular expression is too large to match here (over ${MAX_PATTERN_STATES.toLocaleString('en')} states): repeat less (smaller {m,n} counts).`,
    );
  }
  const { numbers, count: groups } = numberGroups(tree);
  const emitter = new Emitter(flags.has('i'), numbers);
  emitter.emit(SAVE, 0);
  emitter.alternatives(tree);
  emitter.emit(SAVE, 1);
  emitter.emit(MATCH);
  const program: Program = {
    op: Uint8Array.from(emitter.op),
    x: Int32Array.from(emitter.x),
    y: Int32Array.from(emitter.y),
    tests: emitter.tests,
    slots: 2 * (groups + 1),
    groups,
    multiline: flags.has('m'),
    matchesEmpty: false,
  };
  program.matchesEmpty = search(program, [], 0, true) !== null;
  return program;
}

let cached = new Map<string, Program>();
let cachedStates = 0;

function program(pattern: string, flags: string): Program {
  const key = `${flags}/${pattern}`;
  let found = cached.get(key);
  if (found === undefined) {
    found = compile(pattern, flags);
    if (cachedStates + found.op.length > CACHE_STATES) forgetPatterns();
    cached.set(key, found);
    cachedStates += found.op.length;
  }
  return found;
}

/** Drops the compiled patterns: called after every XPath 3.1 call, so none outlives it (ADR 0048). */
export function forgetPatterns(): void {
  cached = new Map();
  cachedStates = 0;
}

/** Compiled patterns kept now (for tests). */
export function keptPatterns(): number {
  return cached.size;
}

/** One thread list: states in priority order, each with its capture slots. */
class Threads {
  readonly states: Int32Array;
  readonly captures: Int32Array[];
  length = 0;
  constructor(size: number) {
    this.states = new Int32Array(size);
    this.captures = new Array(size);
  }
}

/** A program's working memory, made on its first search and reused by the next. */
interface Scratch {
  current: Threads;
  next: Threads;
  /** The generation in which each state was last added to a list: no state twice in one list. */
  seen: Int32Array;
  generation: number;
}
const scratches = new WeakMap<Program, Scratch>();

function scratchOf(prog: Program): Scratch {
  let scratch = scratches.get(prog);
  if (scratch === undefined) {
    const states = prog.op.length;
    scratch = {
      current: new Threads(states),
      next: new Threads(states),
      seen: new Int32Array(states),
      generation: 0,
    };
    scratches.set(prog, scratch);
  }
  return scratch;
}

/**
 * The first match at or after `from` (code point positions), as its capture slots (-1: the group
 * did not take part), or null. `any`: stop at the first match found, whatever its priority.
 */
function search(prog: Program, input: number[], from: number, any = false): Int32Array | null {
  const scratch = scratchOf(prog);
  let { current, next } = scratch;
  current.length = 0;
  const { seen } = scratch;
  let matched: Int32Array | null = null;
  const stack: number[] = [];
  const stackCaptures: Int32Array[] = [];
  const n = input.length;

  /** Adds `start` and every state it reaches without reading, in priority order. */
  const add = (list: Threads, start: number, captures: Int32Array, at: number) => {
    const generation = scratch.generation;
    stack.push(start);
    stackCaptures.push(captures);
    while (stack.length > 0) {
      const state = stack.pop() as number;
      let caps = stackCaptures.pop() as Int32Array;
      if (seen[state] === generation) continue;
      seen[state] = generation;
      switch (prog.op[state]) {
        case JMP:
          stack.push(prog.x[state] as number);
          stackCaptures.push(caps);
          break;
        case SPLIT:
          // The preferred target is explored first, so it is pushed last.
          stack.push(prog.y[state] as number, prog.x[state] as number);
          stackCaptures.push(caps, caps);
          break;
        case SAVE:
          caps = caps.slice();
          caps[prog.x[state] as number] = at;
          stack.push(state + 1);
          stackCaptures.push(caps);
          break;
        // `m`: a line starts after a newline that is not the last character, and ends before a
        // newline or at the end of a string that does not end with one.
        case BOL:
          if (at === 0 || (prog.multiline && input[at - 1] === 10 && at < n)) {
            stack.push(state + 1);
            stackCaptures.push(caps);
          }
          break;
        case EOL:
          if (prog.multiline ? input[at] === 10 || (at === n && input[n - 1] !== 10) : at === n) {
            stack.push(state + 1);
            stackCaptures.push(caps);
          }
          break;
        default:
          list.states[list.length] = state;
          list.captures[list.length] = caps;
          list.length++;
      }
    }
  };

  const fresh = new Int32Array(prog.slots).fill(-1);
  scratch.generation++;
  for (let at = from; at <= n; at++) {
    // A match starting here ranks below every thread already running: leftmost first.
    if (matched === null) add(current, 0, fresh, at);
    scratch.generation++;
    next.length = 0;
    const char = at < n ? (input[at] as number) : -1;
    for (let i = 0; i < current.length; i++) {
      const state = current.states[i] as number;
      const caps = current.captures[i] as Int32Array;
      if (prog.op[state] === MATCH) {
        matched = caps;
        if (any) return matched;
        // Threads after this one have lower priority: they are dropped.
        break;
      }
      if (char >= 0 && (prog.tests[prog.x[state] as number] as Predicate)(char))
        add(next, state + 1, caps, at + 1);
    }
    [current, next] = [next, current];
    if (matched !== null && current.length === 0) break;
  }
  current.captures.fill(undefined as unknown as Int32Array, 0, current.length);
  return matched;
}

/** The input as code points, and each one's offset in the string (one more: the end). */
function codePoints(input: string): { points: number[]; offsets: number[] } {
  const points: number[] = [];
  const offsets: number[] = [];
  for (let i = 0; i < input.length; ) {
    const point = input.codePointAt(i) as number;
    points.push(point);
    offsets.push(i);
    i += point > 0xffff ? 2 : 1;
  }
  offsets.push(input.length);
  return { points, offsets };
}

/** Every match, left to right, none overlapping, as capture slots over code points. */
function* allMatches(prog: Program, points: number[]): Generator<Int32Array> {
  for (let from = 0; from <= points.length; ) {
    const match = search(prog, points, from);
    if (match === null) return;
    yield match;
    // Never an empty match (replace and tokenize refuse such patterns), but never a loop either.
    from = Math.max(match[1] as number, (match[0] as number) + 1);
  }
}

function refuseEmpty(prog: Program, pattern: string): void {
  if (prog.matchesEmpty) fail('FORX0003', `The pattern "${pattern}" matches the empty string.`);
}

export function matches(input: string, pattern: string, flags: string): boolean {
  return search(program(pattern, flags), codePoints(input).points, 0, true) !== null;
}

export function tokenize(input: string, pattern: string, flags: string): string[] {
  const prog = program(pattern, flags);
  refuseEmpty(prog, pattern);
  if (input === '') return [];
  const { points, offsets } = codePoints(input);
  const tokens: string[] = [];
  let last = 0;
  for (const match of allMatches(prog, points)) {
    tokens.push(input.slice(offsets[last], offsets[match[0] as number]));
    last = match[1] as number;
  }
  tokens.push(input.slice(offsets[last]));
  return tokens;
}

type Part = string | number;

/** The replacement as literal text and group numbers (XPath's `$N` rules; FORX0004 otherwise). */
function readReplacement(replacement: string, groups: number): Part[] {
  const parts: Part[] = [];
  let text = '';
  for (let i = 0; i < replacement.length; i++) {
    const char = replacement[i] as string;
    if (char === '\\') {
      const escaped = replacement[i + 1];
      if (escaped !== '\\' && escaped !== '$')
        fail('FORX0004', 'Invalid replacement: a "\\" must be followed by "\\" or "$".');
      text += escaped;
      i++;
    } else if (char === '$') {
      let digits = /^[0-9]+/.exec(replacement.slice(i + 1))?.[0];
      if (digits === undefined)
        fail('FORX0004', 'Invalid replacement: a "$" must be followed by a group number.');
      i += digits.length;
      // Past the groups and past 9, the last digit is literal text (the rule applied again).
      let literal = '';
      while (Number(digits) > 9 && Number(digits) > groups) {
        literal = digits.slice(-1) + literal;
        digits = digits.slice(0, -1);
      }
      parts.push(text, Number(digits));
      text = literal;
    } else text += char;
  }
  parts.push(text);
  return parts;
}

export function replace(input: string, pattern: string, replacement: string, flags: string): string {
  const prog = program(pattern, flags);
  refuseEmpty(prog, pattern);
  const parts: Part[] = flags.includes('q') ? [replacement] : readReplacement(replacement, prog.groups);
  const { points, offsets } = codePoints(input);
  let out = '';
  let last = 0;
  for (const match of allMatches(prog, points)) {
    out += input.slice(offsets[last], offsets[match[0] as number]);
    for (const part of parts) {
      if (typeof part === 'string') out += part;
      else if (part <= prog.groups) {
        const start = match[2 * part] as number;
        const end = match[2 * part + 1] as number;
        if (start >= 0 && end >= 0) out += input.slice(offsets[start], offsets[end]);
      }
    }
    last = match[1] as number;
  }
  return out + input.slice(offsets[last]);
}

(globalThis as Record<symbol, unknown>)[Symbol.for('oxml-mcp.xsd-regex')] = { matches, replace, tokenize };
