import { EngineError } from '../engine/errors.js';
import { tokenize } from '../engine/query/xpath-tokens.js';
import { MAX_XPATH_LENGTH } from '../limits.js';

/**
 * The XPath 2.0+ functions models write (and XSLT's), each with how to say it in XPath 1.0
 * (docs/behaviour.md §2). `as` rewrites the call in place, `{0}` standing for its first argument
 * and `{(0)}` for it in brackets when it is more than a path; `say` is the advice where XPath 1.0
 * has no equivalent expression.
 */
const ALPHABET = "'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'";
const NO_REGEX = 'XPath 1.0 has no regular expressions';
const NO_CLOCK =
  "XPath 1.0 has no clock: write the date into the expression ('2025-01-31'), and compare dates as numbers, e.g. translate(@date, '-', '') > 20250131";
const XSLT = 'is XSLT, not XPath: write the path from the document root instead';
interface Alternative {
  as?: string | ((args: string[]) => string);
  say?: string;
}
const ALTERNATIVES: Record<string, Alternative> = {
  'lower-case': { as: `translate({0}, ${ALPHABET})` },
  'upper-case': { as: `translate({0}, ${ALPHABET.split(', ').reverse().join(', ')})` },
  'ends-with': { as: 'substring({0}, string-length({0}) - string-length({1}) + 1) = {1}' },
  exists: { as: 'boolean({0})' },
  empty: { as: 'not({0})' },
  abs: { as: '{(0)} * (({(0)} > 0) - ({(0)} < 0))' },
  avg: { as: 'sum({0}) div count({0})' },
  max: { as: '{(0)}[not(. < {0})]', say: 'the largest is the node no other exceeds' },
  min: { as: '{(0)}[not(. > {0})]', say: 'the smallest is the node no other is below' },
  head: { as: '({0})[1]' },
  tail: { as: '({0})[position() > 1]' },
  subsequence: {
    as: (args) =>
      args.length > 2 ? '({0})[position() >= {1} and position() < {1} + {2}]' : '({0})[position() >= {1}]',
  },
  'year-from-date': { as: 'number(substring({0}, 1, 4))' },
  'year-from-dateTime': { as: 'number(substring({0}, 1, 4))' },
  'month-from-date': { as: 'number(substring({0}, 6, 2))' },
  'month-from-dateTime': { as: 'number(substring({0}, 6, 2))' },
  'day-from-date': { as: 'number(substring({0}, 9, 2))' },
  'day-from-dateTime': { as: 'number(substring({0}, 9, 2))' },
  'contains-token': { as: "contains(concat(' ', normalize-space({0}), ' '), concat(' ', {1}, ' '))" },
  data: { as: 'string({0})' },
  'node-name': { as: 'name({0})' },
  'string-join': {
    say: 'XPath 1.0 cannot join values: query the nodes themselves ({0}), one value per line comes back',
  },
  'distinct-values': {
    say: 'XPath 1.0 has no sets of values: keep the first node of each value, e.g. //item[not(. = preceding::item)], or //r[not(@k = preceding::r/@k)]/@k for an attribute',
  },
  matches: {
    say: `${NO_REGEX}: test with contains({0}, 'text') or starts-with({0}, 'text'), or a character class with translate(), e.g. translate({0}, '0123456789', '') = '' for digits only`,
  },
  replace: {
    say: `${NO_REGEX}: translate({0}, 'abc', 'xyz') replaces single characters, concat(substring-before({0}, 'old'), 'new', substring-after({0}, 'old')) the first occurrence of a string`,
  },
  tokenize: {
    say: 'XPath 1.0 cannot split a string: substring-before({0}, {1}) and substring-after({0}, {1}) are the parts around the first separator',
  },
  'current-date': { say: NO_CLOCK },
  'current-dateTime': { say: NO_CLOCK },
  'current-time': { say: NO_CLOCK },
  compare: { say: 'XPath 1.0 compares strings only for equality ({0} = {1}); < and > compare numbers' },
  'index-of': { say: 'the position of a node is count(preceding-sibling::*) + 1 in a predicate on it' },
  reverse: { say: 'XPath 1.0 answers in document order; [last()] picks the last node' },
  sort: { say: 'XPath 1.0 cannot sort: nodes come back in document order' },
  'format-number': {
    say: 'XPath 1.0 cannot format numbers; round({0} * 100) div 100 rounds to two decimals',
  },
  'round-half-to-even': { as: 'round({0})' },
  current: { say: XSLT },
  key: { say: XSLT },
  'generate-id': { say: 'is XSLT, not XPath: tell nodes apart by their position or an attribute' },
  doc: { say: 'loads another document, which this server never does: query the document you pass' },
  document: { say: 'loads another document, which this server never does: query the document you pass' },
};
/** `xs:TYPE(x)`, the type constructors. */
const CONSTRUCTORS: Record<string, Alternative> = {
  string: { as: 'string({0})' },
  integer: { as: 'floor({0})' },
  int: { as: 'floor({0})' },
  decimal: { as: 'number({0})' },
  double: { as: 'number({0})' },
  float: { as: 'number({0})' },
  boolean: { as: "({0} = 'true' or {0} = '1')" },
  date: { say: "XPath 1.0 has no dates: compare them as numbers, e.g. translate({0}, '-', '') > 20250131" },
  dateTime: {
    say: "XPath 1.0 has no dates: compare them as numbers, e.g. translate(substring({0}, 1, 10), '-', '') > 20250131",
  },
};

/** XPath 1.0's 27 functions and 4 node types (§2.3, §4). */
const XPATH1 = new Set(
  'last position count id local-name namespace-uri name string concat starts-with contains substring-before substring-after substring string-length normalize-space translate boolean not true false lang number sum floor ceiling round comment text processing-instruction node'.split(
    ' ',
  ),
);
/** XPath 2.0 calls nested deeper than this are named, not rewritten. */
const MAX_REWRITE_NESTING = 4;
/** Prefixes XPath 2.0 and XSLT write function names with. */
const FUNCTION_PREFIXES = new Set(['fn', 'xs', 'xsd', 'math']);

interface Call {
  name: string;
  start: number;
  /** Past the closing bracket. */
  end: number;
  args: string[];
}

/**
 * An engine error on an expression that calls XPath 2.0+ functions, with one sentence for each
 * (up to three) saying how to write it in XPath 1.0, and the whole expression rewritten when
 * every such call has an XPath 1.0 equivalent. Any other error comes back as it was.
 */
export function withXPath2Hint(error: unknown, expression: string): unknown {
  if (!(error instanceof EngineError)) return error;
  if (!['xpath-failed', 'invalid-xpath', 'unbound-prefix'].includes(error.code)) return error;
  const calls = firstCallOfEach(expression);
  if (calls.length === 0) return error;
  const prefixed = calls.some((call) => call.name.includes(':'));
  if (error.code === 'unbound-prefix' && !prefixed) return error;
  const sentences = calls.slice(0, 3).map(sentence);
  const whole = rewrite(expression);
  const wholeSentence =
    whole !== undefined &&
    !(calls.length === 1 && calls[0]?.start === 0 && calls[0].end === expression.length)
      ? ` The whole expression in XPath 1.0: \`${whole}\`.`
      : '';
  const lead =
    error.code === 'unbound-prefix'
      ? `The expression \`${expression}\` calls XPath 2.0 functions; XPath 1.0 functions take no prefix.`
      : error.message;
  return new EngineError({
    code: error.code,
    message: `${lead} ${sentences.join(' ')}${wholeSentence}`,
    ...(error.column === undefined ? {} : { column: error.column }),
  });
}

function sentence(call: Call): string {
  const alternative = alternativeFor(call.name) ?? {};
  const shown = `\`${call.name}()\``;
  const written = call.args.map((arg) => rewrite(arg) ?? arg);
  const as = templateOf(alternative, written);
  const say = alternative.say === undefined ? undefined : fill(alternative.say, written);
  if (call.name.startsWith('fn:') && XPATH1.has(call.name.slice(3))) {
    return `${shown} is XPath 1.0's \`${call.name.slice(3)}()\`: write it without \`fn:\`.`;
  }
  if (as !== undefined) return `${shown} is not XPath 1.0; ${say ? `${say}: ` : 'write '}\`${as}\`.`;
  if (say?.startsWith('is ') || say?.startsWith('loads ')) return `${shown} ${say}.`;
  return `${shown} is not XPath 1.0; ${say ?? 'XPath 1.0 has no such function'}.`;
}

function alternativeFor(name: string): Alternative | undefined {
  const colon = name.indexOf(':');
  if (colon === -1) return Object.hasOwn(ALTERNATIVES, name) ? ALTERNATIVES[name] : undefined;
  const [prefix, local] = [name.slice(0, colon), name.slice(colon + 1)];
  if (!FUNCTION_PREFIXES.has(prefix)) return undefined;
  if (prefix === 'xs' || prefix === 'xsd')
    return Object.hasOwn(CONSTRUCTORS, local) ? CONSTRUCTORS[local] : {};
  if (prefix === 'math') return { say: 'XPath 1.0 has only + - * div mod, floor(), ceiling() and round()' };
  if (XPATH1.has(local)) return { as: (args) => `${local}(${args.map((_, i) => `{${i}}`).join(', ')})` };
  return Object.hasOwn(ALTERNATIVES, local) ? ALTERNATIVES[local] : undefined;
}

/** Whether XPath 1.0 lacks the function and this table knows it. */
function isXPath2(name: string): boolean {
  return !XPATH1.has(name) && alternativeFor(name) !== undefined;
}

/** The first call of each function XPath 1.0 lacks, in the order they first appear. */
function firstCallOfEach(expression: string): Call[] {
  const seen = new Set<string>();
  return tokenize(expression).flatMap((token) => {
    if (token.kind !== 'function' || seen.has(token.name) || !isXPath2(token.name)) return [];
    seen.add(token.name);
    const call = callAt(expression, token.start, token.name);
    return call ? [call] : [];
  });
}

/** The outermost calls of functions XPath 1.0 lacks (those not inside another such call), in order. */
function outermostCalls(expression: string): Call[] {
  const calls: Call[] = [];
  for (const token of tokenize(expression)) {
    if (token.kind !== 'function' || token.start < (calls.at(-1)?.end ?? 0) || !isXPath2(token.name))
      continue;
    const call = callAt(expression, token.start, token.name);
    if (call) calls.push(call);
  }
  return calls;
}

/** The call whose name starts at `start`: its arguments split at top-level commas. */
function callAt(expression: string, start: number, name: string): Call | undefined {
  const open = expression.indexOf('(', start + name.length);
  const args: string[] = [];
  let depth = 0;
  let from = open + 1;
  let quote: string | null = null;
  for (let i = open; i < expression.length; i++) {
    const char = expression[i] as string;
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '(' || char === '[') depth++;
    else if (char === ')' || char === ']') {
      if (--depth === 0) {
        const last = expression.slice(from, i).trim();
        if (last !== '' || args.length > 0) args.push(last);
        return { name, start, end: i + 1, args };
      }
    } else if (char === ',' && depth === 1) {
      args.push(expression.slice(from, i).trim());
      from = i + 1;
    }
  }
  return undefined;
}

/**
 * The expression with every XPath 2.0 call replaced by its XPath 1.0 equivalent, if each has one
 * and the result is no longer than an expression may be: a template that repeats its argument
 * (`max`, `abs`) doubles it at every level of nesting, so the length is checked as it grows, and
 * calls nested deeper than MAX_REWRITE_NESTING are not rewritten at all.
 */
function rewrite(expression: string, depth = 0): string | undefined {
  if (depth > MAX_REWRITE_NESTING) return undefined;
  let text = '';
  let at = 0;
  for (const call of outermostCalls(expression)) {
    const args: string[] = [];
    for (const arg of call.args) {
      const inner = rewrite(arg, depth + 1);
      if (inner === undefined) return undefined;
      args.push(inner);
    }
    const as = templateOf(alternativeFor(call.name) ?? {}, args);
    if (as === undefined) return undefined;
    text += expression.slice(at, call.start) + as;
    if (text.length > MAX_XPATH_LENGTH) return undefined;
    at = call.end;
  }
  text += expression.slice(at);
  return text.length > MAX_XPATH_LENGTH ? undefined : text;
}

/** The call written in XPath 1.0, if it can be. */
function templateOf(alternative: Alternative, args: string[]): string | undefined {
  const as = typeof alternative.as === 'function' ? alternative.as(args) : alternative.as;
  return as === undefined ? undefined : fill(as, args);
}

function fill(template: string, args: string[]): string {
  return template.replace(/\{(\()?(\d)\)?\}/g, (_, bracket: string | undefined, index: string) => {
    const arg = args[Number(index)] ?? '…';
    return bracket && !isPath(arg) ? `(${arg})` : arg;
  });
}

/** A location path or a number, which a predicate or an operator can follow without brackets. */
function isPath(arg: string): boolean {
  let depth = 0;
  let quote: string | null = null;
  for (const char of arg) {
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '(' || char === '[') depth++;
    else if (char === ')' || char === ']') depth--;
    else if (depth === 0 && /[\s|+=<>!,]/.test(char)) return false;
  }
  return !/^[\p{L}_][\p{L}\p{N}_.\-:]*\s*\(/u.test(arg) || /^(text|node|comment)\(\)/.test(arg);
}
