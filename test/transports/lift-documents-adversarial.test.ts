/**
 * Adversarial review of the lifting reader (src/transports/lift-documents.ts, docs/adr/0007).
 *
 * The contract under test, for any byte string: `parseLineLiftingDocuments` either returns
 * undefined, or returns exactly what `JSON.parse` of the whole (UTF-8 decoded) message returns,
 * except that `params.arguments.xml` / `.xsd` may be `LiftedDocument`s whose bytes are
 * `Buffer.from(thatString, 'utf8')` of a well-formed string; a `LiftedDocument` never appears
 * anywhere else; and it never throws, hangs, or reads outside the bytes it was given.
 *
 * The oracle (`verify`) compares own keys in order, prototypes, property descriptors and
 * `Object.is` on scalars, so `__proto__` keys, -0 and key order are all held to JSON.parse.
 */
import { parseJSONRPCMessage } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiftedDocument } from '../../src/lifted-document.js';
import { tools } from '../../src/tools/index.js';
import { inputKeys, parseArguments } from '../../src/tools/tool.js';
import { classifyValue } from '../../src/transports/jsonrpc-lines.js';
import { LIFT_DOCUMENTS_FROM_BYTES, parseLineLiftingDocuments } from '../../src/transports/lift-documents.js';
import { seededRandom } from '../support/seeded-random.js';

// ---------------------------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------------------------

type Verdict = 'lifted' | 'declined';

const utf8 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');

const show = (bytes: Uint8Array): string => {
  const text = utf8(bytes);
  return JSON.stringify(text.length > 300 ? `${text.slice(0, 150)}…${text.slice(-150)}` : text);
};

function isDocumentPath(path: readonly string[]): boolean {
  return (
    path.length === 3 &&
    path[0] === 'params' &&
    path[1] === 'arguments' &&
    (path[2] === 'xml' || path[2] === 'xsd')
  );
}

/**
 * Throws unless `actual` is `expected` (a JSON.parse result) with only documents lifted.
 * Iterative: the messages may nest deeper than the stack allows.
 */
function compare(actualRoot: unknown, expectedRoot: unknown, lifted: { count: number }): void {
  const work: [unknown, unknown, string[]][] = [[actualRoot, expectedRoot, []]];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const [actual, expected, path] = item;
    const where = path.join('.') || '(top)';
    if (actual instanceof LiftedDocument) {
      if (!isDocumentPath(path)) throw new Error(`a LiftedDocument at ${where}`);
      if (typeof expected !== 'string')
        throw new Error(`lifted ${where}, but JSON.parse reads ${typeof expected}`);
      if (!expected.isWellFormed()) throw new Error(`lifted ${where}, but JSON.parse reads a lone surrogate`);
      const bytes = actual.bytes;
      if (!(bytes instanceof Uint8Array)) throw new Error(`${where}: bytes is not a Uint8Array`);
      if (!Buffer.from(expected, 'utf8').equals(bytes)) {
        throw new Error(
          `${where}: lifted bytes ${Buffer.from(bytes).toString('hex')} != UTF-8 of JSON.parse's string ${Buffer.from(expected, 'utf8').toString('hex')}`,
        );
      }
      if (bytes.byteOffset !== 0 || bytes.byteLength !== bytes.buffer.byteLength) {
        throw new Error(
          `${where}: the lifted bytes do not own their buffer (the pool would transfer a shared one)`,
        );
      }
      lifted.count++;
      continue;
    }
    if (expected === null || typeof expected !== 'object') {
      if (!Object.is(actual, expected)) {
        throw new Error(`${where}: ${String(actual)} (${typeof actual}) != JSON.parse's ${String(expected)}`);
      }
      continue;
    }
    if (actual === null || typeof actual !== 'object') throw new Error(`${where}: not an object`);
    if (Array.isArray(expected) !== Array.isArray(actual)) throw new Error(`${where}: array vs object`);
    if (Object.getPrototypeOf(actual) !== Object.getPrototypeOf(expected))
      throw new Error(`${where}: prototype differs`);
    const keys = Reflect.ownKeys(actual);
    const expectedKeys = Reflect.ownKeys(expected);
    if (keys.length !== expectedKeys.length || keys.some((key, i) => key !== expectedKeys[i])) {
      throw new Error(
        `${where}: own keys ${JSON.stringify(keys.map(String))} != ${JSON.stringify(expectedKeys.map(String))}`,
      );
    }
    // Arrays: compare the elements without building a path per element (deep nesting).
    for (const key of expectedKeys) {
      const a = Object.getOwnPropertyDescriptor(actual, key) as PropertyDescriptor;
      const e = Object.getOwnPropertyDescriptor(expected, key) as PropertyDescriptor;
      if (
        !('value' in a) ||
        a.enumerable !== e.enumerable ||
        a.writable !== e.writable ||
        a.configurable !== e.configurable
      ) {
        throw new Error(`${where}.${String(key)}: property descriptor differs`);
      }
      const step = Array.isArray(expected) ? `[${String(key)}]` : String(key);
      work.push([
        a.value,
        e.value,
        path.length < 4 ? [...path, step] : path.length === 4 ? [...path, '…'] : path,
      ]);
    }
  }
}

/** The invariant for one input; returns what the reader did, throws with a description otherwise. */
function verify(bytes: Uint8Array): Verdict {
  let result: Record<string, unknown> | undefined;
  try {
    result = parseLineLiftingDocuments(bytes);
  } catch (error) {
    throw new Error(`threw ${String(error)} on ${show(bytes)}`);
  }
  if (result === undefined) return 'declined';
  const text = utf8(bytes);
  let expected: unknown;
  try {
    expected = JSON.parse(text);
  } catch (error) {
    throw new Error(`lifted a message JSON.parse rejects (${String(error)}): ${show(bytes)}`);
  }
  const lifted = { count: 0 };
  try {
    compare(result, expected, lifted);
    // stdio reads `toString().trim()`: the same value whenever the reader answers.
    compare(result, JSON.parse(text.trim()), { count: 0 });
    if (lifted.count === 0) throw new Error('answered without lifting any document');
    if ((expected as { method?: unknown }).method !== 'tools/call')
      throw new Error('answered another method');
  } catch (error) {
    throw new Error(`${(error as Error).message} on ${show(bytes)}`);
  }
  return 'lifted';
}

/**
 * The same bytes as a view into a larger buffer whose neighbouring bytes would complete the
 * message: any read outside the view shows as a different answer (or a DataView RangeError).
 */
function embedded(bytes: Uint8Array, before: number, after: string): Uint8Array {
  const tail = Buffer.from(after, 'latin1');
  const buffer = new ArrayBuffer(before + bytes.length + tail.length);
  const all = new Uint8Array(buffer);
  all.fill(0x22, 0, before);
  all.set(bytes, before);
  all.set(tail, before + bytes.length);
  return new Uint8Array(buffer, before, bytes.length);
}

const AFTER_END = ['', '"}}}', '\\', '"', 'u0041"}}}', '0"}}}', '\n', '}}}'];

function verifyEverywhere(bytes: Uint8Array, salt = 0): Verdict {
  const verdict = verify(bytes);
  const view = embedded(bytes, 1 + (salt % 7), AFTER_END[salt % AFTER_END.length] as string);
  const inView = verify(view);
  if (inView !== verdict) throw new Error(`answer depends on bytes outside the view: ${show(bytes)}`);
  return verdict;
}

const bytesOf = (text: string): Buffer => Buffer.from(text, 'utf8');

// ---------------------------------------------------------------------------------------------
// A JSON writer with adversarial choices: escapes in either case, odd whitespace, raw bytes
// ---------------------------------------------------------------------------------------------

type Ast =
  | { kind: 'string'; value: string }
  | { kind: 'raw'; text: string }
  | { kind: 'array'; items: Ast[] }
  | { kind: 'object'; members: [string, Ast][] };

interface Style {
  seed: number;
  /** Chance that a character which may be written raw is written as an escape. */
  escape: number;
  /** Chance of whitespace between two tokens. */
  space: number;
  /** Chance of something JSON does not allow at each place such a thing may go. */
  invalid: number;
  /** Chance that a key is written with escapes too. */
  escapeKeys: number;
}

const JSON_SPACE = [' ', '\t', '\n', '\r', '\r\n', '  '];
/** Whitespace JSON.parse refuses (String.prototype.trim accepts most of it at the ends). */
const NOT_JSON_SPACE = ['\v', '\f', '\u00a0', '\ufeff', '\u2028', '\u3000', '\u0000', '\u0085'];
const SHORT: Record<number, string> = { 8: 'b', 12: 'f', 10: 'n', 13: 'r', 9: 't' };
const BROKEN_IN_STRING: number[][] = [
  [0x01],
  [0x1f],
  [0x0a],
  [0x5c, 0x78], // \x
  [0x5c, 0x55, 0x30, 0x30, 0x34, 0x31], // \U0041
  [0x5c, 0x75, 0x31, 0x32], // \u12
  [0x5c, 0x75, 0x31, 0x32, 0x67, 0x34], // \u12g4
  [0x5c, 0x27], // \'
  [0x5c, 0x30], // \0
  [0xc3], // lone lead byte
  [0xff],
  [0x80],
  [0xc0, 0xaf], // overlong /
  [0xe0, 0x80, 0xa2], // overlong "
  [0xed, 0xa0, 0x80], // CESU-8 surrogate
  [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
  [0xf0, 0x9f, 0x98], // truncated 4-byte
];

class Writer {
  readonly out: number[] = [];
  readonly #rand: () => number;
  readonly #style: Style;

  constructor(style: Style) {
    this.#style = style;
    this.#rand = seededRandom(style.seed);
  }

  #pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#rand() * items.length)] as T;
  }

  #text(text: string): void {
    if (text.length === 1 && text.charCodeAt(0) < 0x80) this.out.push(text.charCodeAt(0));
    else for (const byte of Buffer.from(text, 'utf8')) this.out.push(byte);
  }

  space(): void {
    if (this.#rand() < this.#style.invalid / 4) this.#text(this.#pick(NOT_JSON_SPACE));
    while (this.#rand() < this.#style.space) this.#text(this.#pick(JSON_SPACE));
  }

  #hex(code: number): void {
    const digits = code.toString(16).padStart(4, '0');
    let written = '\\u';
    for (const digit of digits) written += this.#rand() < 0.5 ? digit.toUpperCase() : digit;
    this.#text(written);
  }

  string(value: string, escapeRate = this.#style.escape): void {
    this.out.push(0x22);
    if (value.length > 256) {
      // Long runs (the 16 KiB pieces) as JSON.stringify writes them: the characters near the
      // word boundaries get the random treatment in the short pieces.
      this.#text(JSON.stringify(value).slice(1, -1));
      this.out.push(0x22);
      return;
    }
    for (const char of value) {
      if (this.#rand() < this.#style.invalid / 8) this.out.push(...this.#pick(BROKEN_IN_STRING));
      const code = char.codePointAt(0) as number;
      const escaped = this.#rand() < escapeRate;
      if (code >= 0xd800 && code <= 0xdfff)
        this.#hex(code); // a lone surrogate: no raw form
      else if (code > 0xffff) {
        if (escaped) {
          this.#hex(char.charCodeAt(0));
          this.#hex(char.charCodeAt(1));
        } else this.#text(char);
      } else if (code === 0x22 || code === 0x5c) {
        if (escaped) this.#hex(code);
        else this.#text(code === 0x22 ? '\\"' : '\\\\');
      } else if (code < 0x20) {
        if (this.#rand() < this.#style.invalid) this.out.push(code);
        else if (SHORT[code] !== undefined && !escaped) this.#text(`\\${SHORT[code]}`);
        else this.#hex(code);
      } else if (code === 0x2f && escaped) {
        if (this.#rand() < 0.5) this.#text('\\/');
        else this.#hex(code);
      } else if (escaped) this.#hex(code);
      else this.#text(char);
    }
    if (this.#rand() < this.#style.invalid / 8) this.out.push(...this.#pick(BROKEN_IN_STRING));
    this.out.push(0x22);
  }

  value(ast: Ast, path: string[] = []): void {
    this.space();
    switch (ast.kind) {
      case 'string':
        this.string(ast.value);
        break;
      case 'raw':
        if (this.#rand() < this.#style.invalid) this.#text(this.#pick(NOT_NUMBERS));
        else this.#text(ast.text);
        break;
      case 'array':
        this.out.push(0x5b);
        ast.items.forEach((item, i) => {
          if (i > 0) this.out.push(0x2c);
          this.value(item, [...path, `[${i}]`]);
        });
        if (ast.items.length === 0) this.space();
        if (this.#rand() < this.#style.invalid / 4) this.out.push(0x2c); // trailing comma
        this.space();
        this.out.push(0x5d);
        break;
      case 'object':
        this.out.push(0x7b);
        ast.members.forEach(([key, value], i) => {
          if (i > 0) this.out.push(0x2c);
          this.space();
          this.string(key, this.#rand() < this.#style.escapeKeys ? 0.3 : 0);
          this.space();
          this.out.push(0x3a);
          this.value(value, [...path, key]);
          this.space();
        });
        if (ast.members.length === 0) this.space();
        if (this.#rand() < this.#style.invalid / 4) this.out.push(0x2c);
        this.out.push(0x7d);
        break;
    }
  }

  message(ast: Ast): Buffer {
    if (this.#rand() < this.#style.invalid / 2) this.#text('\ufeff');
    this.value(ast);
    this.space();
    if (this.#rand() < this.#style.invalid / 2)
      this.#text(this.#pick(['x', '}', '{}', ',', '0', '"', '\u0000', ']']));
    return Buffer.from(this.out);
  }
}

const write = (ast: Ast, style: Style): Buffer => new Writer(style).message(ast);

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

const str = (value: string): Ast => ({ kind: 'string', value });
const obj = (members: [string, Ast][]): Ast => ({ kind: 'object', members });

/** Characters chosen to land every interesting byte at every offset of a 4-byte word. */
const documentPiece = fc.oneof(
  {
    weight: 40,
    arbitrary: fc.constantFrom(
      'a',
      '<',
      '>',
      '=',
      ' ',
      '!',
      '#',
      '"',
      '\\',
      '/',
      '\n',
      '\t',
      '\r',
      '\b',
      '\f',
      '\u0000',
      '\u0001',
      '\u001f',
      '\u007f',
      '\u0080',
      'é',
      'ß',
      'â',
      'Ü',
      '\u00a2',
      '\u00dc',
      '\u08a2',
      '\u071c',
      '\u0722',
      '\u07ff',
      '\u0800',
      '中',
      '\u2028',
      '\u2029',
      '\ufeff',
      '\ufffd',
      '\ufffe',
      '\uffff',
      '😀',
      '\u{10000}',
      '\u{10ffff}',
      '\u{1f4a9}',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude00') },
  { weight: 12, arbitrary: fc.nat(41).map((n) => 'abcdefghijklmnopqrstuvwxyz0123456789<r/>x'.slice(0, n)) },
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 6 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '<r a="1">é\n中😀</r>'.repeat(700), // ~16 KiB: past LIFT_DOCUMENTS_FROM_BYTES with the rest
      'x'.repeat(LIFT_DOCUMENTS_FROM_BYTES - 3),
      '\\"'.repeat(3000),
    ),
  },
);
const documentText = fc.array(documentPiece, { maxLength: 24 }).map((pieces) => pieces.join(''));

const NUMBERS = [
  '0',
  '-0',
  '1',
  '-1',
  '1.5',
  '-1.5e3',
  '1E+2',
  '1e-2',
  '0.1',
  '3.0',
  '1e400',
  '-1e-400',
  '123456789012345678901234567890',
  '9007199254740993',
  '-0.0e0',
];
const NOT_NUMBERS = [
  '01',
  '+1',
  '.5',
  '1.',
  'NaN',
  'Infinity',
  '-',
  '1e',
  '0x1',
  'tru',
  'nul',
  'True',
  'undefined',
];
const scalar: fc.Arbitrary<Ast> = fc.oneof(
  { weight: 4, arbitrary: documentText.map(str) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(...NUMBERS, 'true', 'false', 'null')
      .map((text) => ({ kind: 'raw', text }) as Ast),
  },
  { weight: 1, arbitrary: fc.double().map((n) => ({ kind: 'raw', text: JSON.stringify(n) }) as Ast) },
);

/** Keys that matter at the three lifted levels, so they also turn up (and repeat) deeper down. */
const NAMES = [
  'xml',
  'xsd',
  'params',
  'arguments',
  'method',
  '__proto__',
  'jsonrpc',
  'id',
  'name',
  '_meta',
  'xpath',
  'constructor',
  'toString',
  '',
  'Xml',
  'xml ',
  'xmł',
  'xsd\u0000',
];
const key = (names: readonly string[]) =>
  fc.oneof(
    { weight: 16, arbitrary: fc.constantFrom(...names) },
    { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...'amlxsd_$ é😀'), maxLength: 5 }) },
    // Keys JSON must escape: the reader leaves these to JSON.parse at the three levels.
    { weight: 1, arbitrary: fc.string({ maxLength: 5 }) },
  );

const { value: anyValue } = fc.letrec<{ value: Ast }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }).map((items) => ({ kind: 'array', items }) as Ast),
    fc.array(fc.tuple(key(NAMES), tie('value')), { maxLength: 4 }).map(obj),
  ),
}));

/** Members of an object: mostly distinct keys, sometimes repeated ones. */
const membersOf = (names: readonly string[], value: fc.Arbitrary<Ast>, maxLength = 4) =>
  fc.oneof(
    {
      weight: 8,
      arbitrary: fc.uniqueArray(fc.tuple(key(names), value), { selector: ([k]) => k, maxLength }),
    },
    { weight: 1, arbitrary: fc.array(fc.tuple(key(names), value), { maxLength }) },
  );

/** An object holding `required` (each usually present, possibly twice) among other members. */
const objectWith = (
  required: [string, fc.Arbitrary<Ast>][],
  names: readonly string[],
  extra: fc.Arbitrary<Ast>,
  [present, absent, twice] = [40, 1, 1],
) =>
  fc
    .tuple(
      membersOf(names, extra, 5),
      fc.nat(5),
      fc.tuple(
        ...required.map(([name, value]) =>
          fc.oneof(
            { weight: present, arbitrary: value.map((v) => [[name, v]] as [string, Ast][]) },
            { weight: absent, arbitrary: fc.constant([] as [string, Ast][]) },
            {
              weight: twice,
              arbitrary: fc.tuple(value, value).map(
                ([a, b]) =>
                  [
                    [name, a],
                    [name, b],
                  ] as [string, Ast][],
              ),
            },
          ),
        ),
      ),
      fc.boolean(),
      fc.nat(4).map((n) => n > 0),
    )
    .map(([extras, split, groups, reverse, dropExtras]) => {
      const core = groups.flat();
      if (reverse) core.reverse();
      // Extras that repeat a required key would make most messages repeat keys: keep them rarer.
      const kept = extras.filter((m) => !dropExtras || !required.some(([name]) => name === m[0]));
      return obj([...kept.slice(0, split), ...core, ...kept.slice(split)]);
    });

const documentValue = fc.oneof(
  { weight: 12, arbitrary: documentText.map(str) },
  { weight: 1, arbitrary: anyValue },
);
const ARGUMENT_NAMES = [
  'xml',
  'xsd',
  'xpath',
  'namespaces',
  'max_chars',
  'indent',
  'params',
  'arguments',
  '__proto__',
  '_meta',
];
const argumentsValue = fc.oneof(
  {
    weight: 20,
    arbitrary: objectWith(
      [
        ['xml', documentValue],
        ['xsd', documentValue],
      ],
      ARGUMENT_NAMES,
      documentValue,
      [16, 5, 1],
    ),
  },
  { weight: 1, arbitrary: anyValue },
);
const paramsValue = fc.oneof(
  {
    weight: 20,
    arbitrary: objectWith(
      [['arguments', argumentsValue]],
      ['name', '_meta', 'xml', 'xsd', 'params', '__proto__', 'task'],
      anyValue,
    ),
  },
  { weight: 1, arbitrary: anyValue },
);
const methodValue = fc.oneof(
  { weight: 30, arbitrary: fc.constant(str('tools/call')) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('tools/list', 'tools/call ', 'Tools/call', 'tools/call\u0000', '').map(str),
  },
  { weight: 1, arbitrary: anyValue },
);
const message = objectWith(
  [
    ['method', methodValue],
    ['params', paramsValue],
  ],
  ['jsonrpc', 'id', 'xml', 'xsd', 'arguments', '__proto__', '_meta', 'result'],
  anyValue,
);

const cleanStyle = fc.record({
  seed: fc.integer(),
  escape: fc.constantFrom(0, 0, 0.05, 0.5, 1),
  space: fc.constantFrom(0, 0, 0.2, 0.6),
  invalid: fc.constant(0),
  escapeKeys: fc.constant(0),
});
const anyStyle = fc.record({
  seed: fc.integer(),
  escape: fc.constantFrom(0, 0.05, 0.5, 1),
  space: fc.constantFrom(0, 0.2, 0.6),
  invalid: fc.constantFrom(0, 0, 0.02, 0.1),
  escapeKeys: fc.constantFrom(0, 0, 0.1),
});

const interestingByte = fc.oneof(
  fc.constantFrom(
    0x22,
    0x5c,
    0x7b,
    0x7d,
    0x5b,
    0x5d,
    0x2c,
    0x3a,
    0x20,
    0x09,
    0x0a,
    0x0d,
    0x00,
    0x1f,
    0x75,
    0x30,
    0x41,
    0x66,
    0x2f,
    0x62,
    0x6e,
    0x80,
    0xa2,
    0xbf,
    0xc3,
    0xdc,
    0xed,
    0xef,
    0xf0,
    0xf4,
    0xff,
  ),
  fc.integer({ min: 0, max: 255 }),
);
const mutation = fc.oneof(
  fc.record({
    op: fc.constant('set' as const),
    at: fc.nat(),
    bytes: fc.array(interestingByte, { minLength: 1, maxLength: 1 }),
  }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.array(interestingByte, { minLength: 1, maxLength: 4 }),
  }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    op: fc.constant('copy' as const),
    from: fc.nat(),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 40 }),
  }),
);
type Mutation =
  | { op: 'set' | 'insert'; at: number; bytes: number[] }
  | { op: 'delete'; at: number; length: number }
  | { op: 'truncate'; at: number }
  | { op: 'copy'; from: number; at: number; length: number };

function mutate(original: Buffer, edits: Mutation[]): Buffer {
  let bytes = Buffer.from(original);
  for (const edit of edits) {
    const at = edit.at % (bytes.length + 1);
    const head = bytes.subarray(0, at);
    switch (edit.op) {
      case 'set':
        if (at < bytes.length) bytes[at] = edit.bytes[0] as number;
        break;
      case 'insert':
        bytes = Buffer.concat([head, Buffer.from(edit.bytes), bytes.subarray(at)]);
        break;
      case 'delete':
        bytes = Buffer.concat([head, bytes.subarray(at + edit.length)]);
        break;
      case 'truncate':
        bytes = Buffer.from(head);
        break;
      case 'copy': {
        const from = bytes.length === 0 ? 0 : edit.from % bytes.length;
        bytes = Buffer.concat([head, bytes.subarray(from, from + edit.length), bytes.subarray(at)]);
        break;
      }
    }
  }
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

const HEAD =
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":"';
const TAIL = '"}}}';

// Exhaustive and CPU-bound: on a busy 2-core machine one of these took over 30 s. No clock is
// read; the time-out only has to outlast the work.
describe('parseLineLiftingDocuments against JSON.parse (adversarial)', { timeout: 180_000 }, () => {
  it('generated well-formed messages: equal to JSON.parse, lifting only params.arguments.xml/xsd', () => {
    const verdicts = { lifted: 0, declined: 0 };
    fc.assert(
      fc.property(message, cleanStyle, fc.nat(), (ast, style, salt) => {
        verdicts[verifyEverywhere(write(ast, style), salt)]++;
      }),
      { numRuns: 2_500 },
    );
    // The generator must reach the lifting path often, or the comparison proves little.
    expect(verdicts.lifted).toBeGreaterThan(verdicts.declined / 4);
  });

  it('generated messages with escaped keys, odd whitespace, BOMs, broken strings and trailing data', () => {
    const verdicts = { lifted: 0, declined: 0 };
    fc.assert(
      fc.property(message, anyStyle, fc.nat(), (ast, style, salt) => {
        verdicts[verifyEverywhere(write(ast, style), salt)]++;
      }),
      { numRuns: 2_500 },
    );
    expect(verdicts.lifted).toBeGreaterThan(100);
  });

  it('random byte mutations of generated messages', () => {
    const verdicts = { lifted: 0, declined: 0 };
    fc.assert(
      fc.property(
        message,
        cleanStyle,
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        fc.nat(),
        (ast, style, edits, salt) => {
          verdicts[verifyEverywhere(mutate(write(ast, style), edits as Mutation[]), salt)]++;
        },
      ),
      { numRuns: 2_500 },
    );
    // A sanity check that mutated messages still reach the lifting path (about 100 of 2,500 do).
    expect(verdicts.lifted).toBeGreaterThan(40);
  });

  it('every special byte at every offset of the 4-byte word, and in the last 1–3 bytes of the buffer', () => {
    const units: number[][] = [];
    for (let byte = 0; byte < 0x80; byte++) units.push([byte]);
    for (let byte = 0x20; byte < 0x80; byte++) units.push([0x5c, byte]); // every backslash pair
    units.push(
      [0x5c], // a backslash, then whatever follows
      [0xc2, 0x80],
      [0xc2, 0xa2],
      [0xc3, 0x9c],
      [0xdc, 0xa2],
      [0xdf, 0xbf],
      [0xe0, 0xa0, 0x80],
      [0xe0, 0xa2, 0xa2],
      [0xed, 0x9f, 0xbf],
      [0xee, 0x80, 0x80],
      [0xef, 0xbb, 0xbf],
      [0xef, 0xbf, 0xbf],
      [0xf0, 0x90, 0x80, 0x80],
      [0xf0, 0x9f, 0x98, 0x80],
      [0xf4, 0x8f, 0xbf, 0xbf],
      ...BROKEN_IN_STRING,
    );
    const head = bytesOf(HEAD);
    const tails = ['', '"}}}', 'a"}}}', 'aaaa"}}}'];
    let lifted = 0;
    for (const filler of [[0x61], [0xc3, 0xa9]]) {
      for (const unit of units) {
        for (let before = 0; before < 8; before++) {
          for (let after = 0; after < 4; after++) {
            const body = [
              ...Array.from({ length: before }, () => filler).flat(),
              ...unit,
              ...Array.from({ length: after }, () => filler).flat(),
            ];
            // Trailing spaces move the closing quote against the last word of the buffer.
            const spaces = ' '.repeat((before + after + unit.length) % 4);
            if (verify(Buffer.concat([head, Buffer.from(body), bytesOf(TAIL + spaces)])) === 'lifted')
              lifted++;
            // Cut inside the document, leaving its last 1..4 bytes at the very end of the view,
            // with bytes after the view that would complete the message.
            for (let cut = 1; cut <= Math.min(4, body.length); cut++) {
              const truncated = Buffer.concat([head, Buffer.from(body.slice(0, body.length - cut + 1))]);
              const view = embedded(truncated, cut, tails[(before + cut) % tails.length] as string);
              expect(verify(view)).toBe('declined');
            }
          }
        }
      }
    }
    expect(lifted).toBeGreaterThan(3_000);
  });

  it('two special bytes within one word, at every offset', () => {
    const special = [
      0x00, 0x01, 0x08, 0x0a, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x2f, 0x5b, 0x5c, 0x5d, 0x62, 0x6e, 0x75, 0x7f,
      0x41, 0x7b, 0x7d,
    ];
    const head = bytesOf(HEAD);
    for (const a of special) {
      for (const b of special) {
        for (let before = 0; before < 4; before++) {
          for (let gap = 0; gap < 3; gap++) {
            const body = [...Array(before).fill(0x61), a, ...Array(gap).fill(0x61), b, 0x61, 0x61, 0x61];
            verifyEverywhere(Buffer.concat([head, Buffer.from(body), bytesOf(TAIL)]), a + b);
          }
        }
      }
    }
  });

  it('every \\uXXXX escape in either case, and every surrogate combination', () => {
    const head = bytesOf(HEAD);
    const tail = bytesOf(TAIL);
    for (let code = 0; code <= 0xffff; code++) {
      const hex = code.toString(16).padStart(4, '0');
      const mixed = [...hex].map((digit, i) => (i % 2 === code % 2 ? digit.toUpperCase() : digit)).join('');
      const verdict = verify(Buffer.concat([head, bytesOf(`a\\u${mixed}b`), tail]));
      expect(verdict).toBe(code >= 0xd800 && code <= 0xdfff ? 'declined' : 'lifted');
    }
    const codes = [
      'd7ff',
      'd800',
      'D83D',
      'dbff',
      'DC00',
      'de00',
      'dfff',
      'e000',
      '0000',
      '0022',
      '005c',
      'fffd',
    ];
    const between = ['', 'a', '\\n', 'é', '\\u'];
    for (const x of codes) {
      for (const y of codes) {
        for (const z of [...codes, '']) {
          for (const gap of between) {
            const text = `\\u${x}${gap}\\u${y}${z ? `\\u${z}` : ''}`;
            verifyEverywhere(Buffer.concat([head, bytesOf(text), tail]), x.length + gap.length);
          }
        }
      }
    }
    // A pair across a word boundary, at each offset, in each case.
    for (let before = 0; before < 8; before++) {
      for (const pair of [
        '\\ud83d\\ude00',
        '\\uD83D\\uDE00',
        '\\uD83d\\uDe00',
        '\\udbff\\udfff',
        '\\ud800\\udc00',
      ]) {
        const text = `${'a'.repeat(before)}${pair}${'b'.repeat(before)}`;
        expect(verify(Buffer.concat([head, bytesOf(text), tail]))).toBe('lifted');
      }
    }
  });

  it.each([
    [
      'xml at the top level',
      '{"method":"tools/call","xml":"<a/>","params":{"arguments":{"xpath":"1"}}}',
      'declined',
    ],
    ['xml directly in params', '{"method":"tools/call","params":{"xml":"<a/>","arguments":{}}}', 'declined'],
    [
      'xml one level deeper',
      '{"method":"tools/call","params":{"arguments":{"namespaces":{"xml":"<a/>"}}}}',
      'declined',
    ],
    ['arguments at the top', '{"method":"tools/call","arguments":{"xml":"<a/>"},"params":{}}', 'declined'],
    [
      'params inside arguments',
      '{"method":"tools/call","params":{"arguments":{"xml":"<a/>","params":{"arguments":{"xml":"<b/>"}}}}}',
      'lifted',
    ],
    [
      'a nested arguments object elsewhere in params',
      '{"method":"tools/call","params":{"_meta":{"arguments":{"xml":"x"}},"arguments":{"xsd":"<s/>"}}}',
      'lifted',
    ],
    [
      'repeated keys deeper down (last wins)',
      '{"method":"tools/call","params":{"arguments":{"xml":"<a/>","namespaces":{"p":"a","p":"b","xml":"1","xml":"2"}},"_meta":{"x":1,"x":[2]}}}',
      'lifted',
    ],
    [
      'a repeated method key',
      '{"method":"tools/list","method":"tools/call","params":{"arguments":{"xml":"<a/>"}}}',
      'declined',
    ],
    [
      'a repeated arguments key',
      '{"method":"tools/call","params":{"arguments":{"xml":"<a/>"},"arguments":{"xml":"<b/>"}}}',
      'declined',
    ],
    [
      'an escaped params key',
      '{"method":"tools/call","\\u0070arams":{"arguments":{"xml":"<a/>"}}}',
      'declined',
    ],
    [
      // Only a plainly written tools/call is lifted; declining is always safe.
      'an escaped method value',
      '{"method":"tools\\/c\\u0061ll","params":{"arguments":{"xml":"<a/>"}}}',
      'declined',
    ],
    [
      '__proto__ at every level',
      '{"__proto__":{"params":1},"method":"tools/call","params":{"__proto__":{"arguments":2},"arguments":{"__proto__":{"xml":"x"},"xml":"<a/>"}}}',
      'lifted',
    ],
    [
      '__proto__ holding the documents',
      '{"method":"tools/call","params":{"arguments":{"__proto__":{"xml":"<a/>","xsd":"<s/>"}}}}',
      'declined',
    ],
    [
      'arguments that is an array',
      '{"method":"tools/call","params":{"arguments":[{"xml":"<a/>"}]}}',
      'declined',
    ],
    [
      'params that is an array',
      '{"method":"tools/call","params":[{"arguments":{"xml":"<a/>"}}]}',
      'declined',
    ],
    [
      'xml that is null',
      '{"method":"tools/call","params":{"arguments":{"xml":null,"xsd":"<s/>"}}}',
      'lifted',
    ],
    [
      'xml that is an object',
      '{"method":"tools/call","params":{"arguments":{"xml":{"xml":"<a/>"}}}}',
      'declined',
    ],
    [
      'numbers of every shape',
      '{"id":-0,"method":"tools/call","params":{"arguments":{"xml":"<a/>","max_chars":1e400,"n":[-0.0e0,123456789012345678901234567890,9007199254740993]}}}',
      'lifted',
    ],
    ['a leading BOM', '\ufeff{"method":"tools/call","params":{"arguments":{"xml":"<a/>"}}}', 'declined'],
    ['a trailing NUL', '{"method":"tools/call","params":{"arguments":{"xml":"<a/>"}}}\u0000', 'declined'],
    ['a trailing NBSP', '{"method":"tools/call","params":{"arguments":{"xml":"<a/>"}}}\u00a0', 'declined'],
    ['a second value', '{"method":"tools/call","params":{"arguments":{"xml":"<a/>"}}} {}', 'declined'],
    ['a trailing close', '{"method":"tools/call","params":{"arguments":{"xml":"<a/>"}}}}', 'declined'],
    [
      'a vertical tab between tokens',
      '{"method":"tools/call",\u000b"params":{"arguments":{"xml":"<a/>"}}}',
      'declined',
    ],
    [
      'a trailing comma in arguments',
      '{"method":"tools/call","params":{"arguments":{"xml":"<a/>",}}}',
      'declined',
    ],
    ['a missing comma', '{"method":"tools/call" "params":{"arguments":{"xml":"<a/>"}}}', 'declined'],
    [
      'a scalar then a bracket',
      '{"method":"tools/call","params":{"arguments":{"xml":"<a/>","x":1]}}}',
      'declined',
    ],
    [
      'mismatched brackets elsewhere',
      '{"method":"tools/call","params":{"arguments":{"xml":"<a/>","x":[1}]}}}',
      'declined',
    ],
    [
      'a bare word elsewhere',
      '{"method":"tools/call","params":{"arguments":{"xml":"<a/>","x":nope}}}',
      'declined',
    ],
    [
      'a \\u0000 in the document',
      '{"method":"tools/call","params":{"arguments":{"xml":"a\\u0000b"}}}',
      'lifted',
    ],
    [
      'a reversed surrogate pair',
      '{"method":"tools/call","params":{"arguments":{"xml":"\\ude00\\ud83d"}}}',
      'declined',
    ],
    [
      'a pair split by a character',
      '{"method":"tools/call","params":{"arguments":{"xml":"\\ud83dx\\ude00"}}}',
      'declined',
    ],
    [
      'a high surrogate before a short escape',
      '{"method":"tools/call","params":{"arguments":{"xml":"\\ud83d\\n"}}}',
      'declined',
    ],
    [
      'a high surrogate at the end',
      '{"method":"tools/call","params":{"arguments":{"xml":"\\ud83d"}}}',
      'declined',
    ],
    [
      'an uppercase \\U',
      '{"method":"tools/call","params":{"arguments":{"xml":"\\ud83d\\Ude00"}}}',
      'declined',
    ],
  ] as const)('%s', (_what, text, expected) => {
    expect(verifyEverywhere(bytesOf(text))).toBe(expected);
  });

  it('every prefix of a message, and every single-byte deletion', () => {
    const text =
      ' {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"xml_validate","arguments":' +
      '{"xml":"<a>é\\n中😀\\ud83d\\ude00\\"</a>","xsd":"<s/>","n":[1,{"xml":"x"}]},"_meta":{"progressToken":1}}} \r\n';
    const bytes = bytesOf(text);
    for (let end = 0; end <= bytes.length; end++) verifyEverywhere(bytes.subarray(0, end), end);
    for (let at = 0; at < bytes.length; at++) {
      verifyEverywhere(Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]), at);
    }
  });

  it('very long keys and very many keys at the three levels', () => {
    const long = 'k'.repeat(300_000);
    const many = Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(',');
    const cases = [
      `{"${long}":1,"method":"tools/call","params":{"${long}":2,"arguments":{"${long}":3,"xml":"<a/>"}}}`,
      `{${many},"method":"tools/call","params":{${many},"arguments":{${many},"xsd":"<s/>"}}}`,
      `{"method":"tools/call","params":{"arguments":{"xml":"<a/>","${long}":1,"${long}":2}}}`,
    ];
    // A repeated key that is not params/arguments/xml/xsd does not matter to the lift.
    expect(cases.map((text) => verify(bytesOf(text)))).toEqual(['lifted', 'lifted', 'lifted']);
  });

  it('stays linear on hostile shapes (no hang, no deep recursion)', () => {
    const n = 1 << 19;
    const keys = Array.from({ length: 100_000 }, (_, i) => `"k${i}":0`).join(',');
    const shapes = [
      `{"method":"tools/call","params":{"arguments":{"xml":"a","x":${'['.repeat(n)}`,
      `{"method":"tools/call","params":{"arguments":{"xml":"a","x":${'['.repeat(n)}${']'.repeat(n)}}}}`,
      `{"method":"tools/call","params":{"arguments":{"xml":"a","x":${'{"a":'.repeat(n / 8)}1${'}'.repeat(n / 8)}}}}`,
      `{"method":"tools/call","params":{"arguments":{"xml":"${'\\\\'.repeat(n)}"}}}`,
      `{"method":"tools/call","params":{"arguments":{"xml":"${'\\u00e9'.repeat(n / 4)}"}}}`,
      `{"method":"tools/call","params":{"arguments":{"xml":"${'\\ud83d\\ude00'.repeat(n / 8)}"}}}`,
      `{"method":"tools/call","params":{"arguments":{"xml":"${'\\\\'.repeat(n)}`,
      `{"method":"tools/call","params":{"arguments":{"xml":"a","x":"${'\\"'.repeat(n)}`,
      `{"method":"tools/call","params":{"arguments":{"xml":"","xsd":""},"_meta":{"x":"${'y'.repeat(4 * n)}"}}}`,
      `{"method":"tools/call","params":{"arguments":{"xml":"a"}}}${' '.repeat(4 * n)}`,
      `{"method":"tools/call","params":{"arguments":{"xml":"a"}}}${' '.repeat(4 * n)}x`,
      '{'.repeat(n),
      // Declined only after the walk (every key decoded into a Set), the lift and JSON.parse of
      // the rest; then the ordinary path parses it all again.
      `{${keys},"method":"tools/list","params":{"arguments":{"xml":"<a/>"}}}`,
      `{${keys},"method":"tools/call","params":{"arguments":{"xpath":"1"}}}`,
      `{"method":"tools/call","params":{"arguments":{"xml":"a${'"'.repeat(n)}`,
    ];
    // Half a million nesting brackets or escapes: a quadratic walk would run for minutes and a
    // recursive one would overflow the stack, so finishing inside the test's timeout, with
    // only declines or exact lifts, is the measure; no clock is read (CI machines are shared).
    for (const text of shapes) {
      const bytes = bytesOf(text);
      let thrown: unknown;
      try {
        parseLineLiftingDocuments(bytes);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, text.slice(0, 80)).not.toBeInstanceOf(RangeError);
      verify(bytes);
    }
  });
});

describe('where a lifted document can go', () => {
  const lifted = () => {
    const text = `{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"xml_validate","arguments":{"xml":"${'<a/>'.repeat(5000)}","xsd":"<s/>"},"_meta":{"progressToken":1}}}`;
    const message = parseLineLiftingDocuments(bytesOf(text));
    if (!message) throw new Error('not lifted');
    return message as { params: { arguments: Record<string, unknown> } };
  };

  it('survives the SDK message validation by identity, and serialises to the placeholder only', () => {
    const message = lifted();
    const xml = message.params.arguments.xml;
    expect(xml).toBeInstanceOf(LiftedDocument);
    const verdict = classifyValue(message);
    expect('message' in verdict).toBe(true);
    const parsed = (verdict as unknown as { message: { params: { arguments: Record<string, unknown> } } })
      .message;
    expect(parsed.params.arguments.xml).toBe(xml);
    expect(parseJSONRPCMessage(message)).toBeDefined();
    const serialised = JSON.stringify(message);
    expect(serialised).toContain('"xml":"[document, 20000 bytes]"');
    expect(serialised).not.toContain('<a/>');
  });

  it('parseArguments gives every tool the same answer as for the strings, documents only at xml/xsd', () => {
    const argumentValue = fc.oneof(
      documentText.filter((text) => text.isWellFormed()),
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom(1, 0, -1, 2.5, 100, 200_000, 'self-closing', 'spaced', null, true),
    );
    const args = fc.dictionary(
      fc.constantFrom(
        'xml',
        'xsd',
        'xpath',
        'namespaces',
        'max_chars',
        'indent',
        'empty_elements',
        '__proto__',
        'other',
      ),
      argumentValue,
      { maxKeys: 6 },
    );
    let compared = 0;
    fc.assert(
      fc.property(args, fc.constantFrom(...tools), (generated, tool) => {
        // Only the tool's own arguments: any other is refused before it is read (unknown-arguments.ts).
        const own = inputKeys(tool);
        const raw = Object.fromEntries(Object.entries(generated).filter(([key]) => own.has(key)));
        const text = JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: tool.name, arguments: raw },
        });
        const message = parseLineLiftingDocuments(bytesOf(text)) as
          | { params: { arguments: unknown } }
          | undefined;
        if (message === undefined) return;
        const plain = JSON.parse(text) as { params: { arguments: unknown } };
        const fromLifted = parseArguments(tool, message.params.arguments);
        const fromStrings = parseArguments(tool, plain.params.arguments);
        expect(fromLifted.ok).toBe(fromStrings.ok);
        if (!fromLifted.ok || !fromStrings.ok) {
          expect(fromLifted).toEqual(fromStrings);
          return;
        }
        compared++;
        const got = fromLifted.args as Record<string, unknown>;
        const want = fromStrings.args as Record<string, unknown>;
        expect(Reflect.ownKeys(got)).toEqual(Reflect.ownKeys(want));
        for (const [name, value] of Object.entries(got)) {
          if (value instanceof LiftedDocument) {
            expect(['xml', 'xsd']).toContain(name);
            expect(Buffer.from(value.bytes).equals(Buffer.from(want[name] as string, 'utf8'))).toBe(true);
          } else expect(value).toEqual(want[name]);
        }
      }),
      { numRuns: 1_500 },
    );
    expect(compared).toBeGreaterThan(50);
  });
});
