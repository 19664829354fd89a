/**
 * Property-based fuzzing of the stdio framing and JSON-RPC input (issue 4, docs/behaviour.md §3): hostile
 * bytes go into a LineStdioTransport wired exactly as production (serveStdio + createServer +
 * an EnginePool), and the session must keep answering well-formed requests correctly, write
 * only JSON-RPC 2.0 responses, never answer a notification, and never crash.
 *
 * Reproduce a failure with the seed fast-check prints (it also prints the shrunk counterexample):
 *   FUZZ_SEED=<seed> npx vitest run test/transports/stdio-fuzz.test.ts -t '<test name>'
 * FUZZ_RUNS=<factor> multiplies every property's run count (e.g. 20 for a soak of a few minutes);
 * FUZZ_STATS=1 prints how the sessions answered, to check the generators reach the server.
 */
import { PassThrough } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { type StdioServerHandle, serveStdio } from '@modelcontextprotocol/server/stdio';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnginePool } from '../../src/engine/runtime/pool.js';
import { createServer } from '../../src/server.js';
import { LineStdioTransport } from '../../src/transports/stdio.js';

const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const RUNS_FACTOR = Number(process.env.FUZZ_RUNS ?? '1');
const runs = (n: number) => Math.max(1, Math.round(n * RUNS_FACTOR));
fc.configureGlobal({ ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: false });

/**
 * Each property's wall-clock budget, shrinking included: a failure found late still reports the
 * smallest counterexample reached by then. The Vitest timeout leaves room for it.
 */
const PROPERTY_BUDGET_MS = 60_000 * Math.max(1, RUNS_FACTOR);
const TEST_TIMEOUT_MS = PROPERTY_BUDGET_MS + 30_000;
const params = (numRuns: number) => ({
  numRuns: runs(numRuns),
  plugins: [fc.interruptAfterTimeLimit(PROPERTY_BUDGET_MS)],
});

/**
 * How long a probe may wait for its answer before the session counts as hung. A hang detector,
 * not a speed check: an answer takes milliseconds, but a shared CI machine can stall a process
 * for seconds, so the wait is long and still inside the test's margin past the property budget.
 */
const ANSWER_TIMEOUT_MS = 20_000;

// ---------------------------------------------------------------------------------------------
// Harness

type RequestId = string | number;
interface Response {
  jsonrpc: '2.0';
  id: RequestId | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

let engine: EnginePool;
/** With FUZZ_STATS=1, what the sessions answered and reported, printed at the end (for tuning). */
const stats = process.env.FUZZ_STATS === '1' ? new Map<string, number>() : undefined;
const count = (what: string) => stats?.set(what, (stats.get(what) ?? 0) + 1);
const brief = (message: string) => message.replace(/\s+/g, ' ').split(/[(:[]/)[0]?.slice(0, 60);
/** Uncaught exceptions and unhandled rejections seen while a property runs: each one fails it. */
const crashes: unknown[] = [];
const onCrash = (error: unknown) => {
  crashes.push(error);
};

beforeAll(() => {
  engine = new EnginePool({ size: 1 });
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
});

afterAll(async () => {
  process.off('uncaughtException', onCrash);
  process.off('unhandledRejection', onCrash);
  await engine.close();
  if (stats) console.info([...stats].map(([what, n]) => `${String(n).padStart(6)}  ${what}`).join('\n'));
  expect(crashes).toEqual([]);
});

/** Why one output line is not a JSON-RPC 2.0 message, or undefined when it is one. */
function jsonRpcProblem(line: string): string | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return 'not JSON';
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return 'not an object';
  const m = message as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  const idOk = (id: unknown) => typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  if ('result' in m || 'error' in m) {
    if ('result' in m && 'error' in m) return 'both result and error';
    if (!('id' in m)) return 'response without id';
    if ('method' in m) return 'response with a method';
    if ('result' in m) {
      if (!idOk(m.id)) return 'result with a missing or null id';
      if (typeof m.result !== 'object' || m.result === null || Array.isArray(m.result))
        return 'result is not an object';
      return undefined;
    }
    if (m.id !== null && !idOk(m.id)) return 'error with an invalid id';
    const error = m.error as Record<string, unknown> | null;
    if (typeof error !== 'object' || error === null) return 'error is not an object';
    if (!Number.isInteger(error.code)) return 'error.code is not an integer';
    if (typeof error.message !== 'string') return 'error.message is not a string';
    return undefined;
  }
  // A message the server starts (a notification or request).
  if (typeof m.method !== 'string') return 'neither a response nor a message with a method';
  if ('id' in m && !idOk(m.id)) return 'server request with an invalid id';
  return undefined;
}

let sessionsStarted = 0;

/** One production-wired stdio session over in-memory pipes. */
class Session {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  /** Every response written, in order. */
  readonly responses: Response[] = [];
  /** Messages the server started (notifications/requests), in order. */
  readonly serverMessages: Array<Record<string, unknown>> = [];
  /** Output lines that are not JSON-RPC 2.0, with the reason. */
  readonly invalid: Array<{ line: string; problem: string }> = [];
  /** Errors serveStdio reported through onerror (reporting only, not failures). */
  readonly reported: Error[] = [];
  readonly #handle: StdioServerHandle;
  #partial = '';
  readonly #listeners = new Set<() => void>();

  constructor(options: { maxLineBytes?: number } = {}) {
    // Every other session lifts documents out of every tools/call line, however short, so both
    // ways of reading a line meet the same hostile input.
    const liftDocumentsFromBytes = sessionsStarted++ % 2 === 0 ? 0 : undefined;
    const transport = new LineStdioTransport(this.input, this.output, {
      ...options,
      ...(liftDocumentsFromBytes === undefined ? {} : { liftDocumentsFromBytes }),
    });
    this.#handle = serveStdio(() => createServer(engine, { byteTexts: transport }), {
      transport,
      onerror: (error) => {
        this.reported.push(error);
      },
    });
    this.output.setEncoding('utf8');
    this.output.on('data', (text: string) => this.#read(text));
  }

  #read(text: string): void {
    this.#partial += text;
    for (let newline = this.#partial.indexOf('\n'); newline >= 0; newline = this.#partial.indexOf('\n')) {
      const line = this.#partial.slice(0, newline);
      this.#partial = this.#partial.slice(newline + 1);
      const problem = jsonRpcProblem(line);
      if (problem !== undefined) {
        this.invalid.push({ line: line.slice(0, 500), problem });
        continue;
      }
      const message = JSON.parse(line) as Record<string, unknown>;
      if ('result' in message || 'error' in message) this.responses.push(message as unknown as Response);
      else this.serverMessages.push(message);
    }
    for (const listener of this.#listeners) listener();
  }

  /** Writes the chunks one by one, letting the event loop turn between them. */
  async write(chunks: Uint8Array[]): Promise<void> {
    for (const chunk of chunks) {
      this.input.write(chunk);
      await tick();
    }
  }

  responsesTo(id: RequestId): Response[] {
    return this.responses.filter((response) => response.id === id);
  }

  /**
   * Resolves with the first response to `id`; rejects if none comes in time (a hung session), or
   * at once when `doomed` says the responses so far already rule the answer out (fast shrinking).
   */
  waitFor(id: RequestId, doomed?: (responses: Response[]) => boolean): Promise<Response> {
    return new Promise((resolve, reject) => {
      const settle = (error?: Error) => {
        this.#listeners.delete(check);
        clearTimeout(timer);
        if (error) reject(error);
      };
      const check = () => {
        const found = this.responses.find((response) => response.id === id);
        if (found) {
          settle();
          resolve(found);
        } else if (doomed?.(this.responses)) {
          settle(
            new Error(`no response to ${JSON.stringify(id)} can come: ${JSON.stringify(this.responses)}`),
          );
        }
      };
      const timer = setTimeout(
        () =>
          settle(new Error(`no response to ${JSON.stringify(id)} within ${ANSWER_TIMEOUT_MS} ms (hung?)`)),
        ANSWER_TIMEOUT_MS,
      );
      this.#listeners.add(check);
      check();
    });
  }

  async close(): Promise<void> {
    await this.#handle.close();
    this.input.end();
    this.output.end();
  }
}

/** Runs `body` on a fresh session, always closes it, and fails on any crash seen meanwhile. */
async function withSession<T>(
  options: { maxLineBytes?: number },
  body: (session: Session) => Promise<T>,
): Promise<T> {
  const before = crashes.length;
  const session = new Session(options);
  try {
    const value = await body(session);
    for (const r of session.responses)
      count(r.error ? `error ${r.error.code} ${brief(r.error.message)}` : `result, id ${typeof r.id}`);
    for (const error of session.reported) count(`reported: ${brief(error.message)}`);
    expect(session.invalid, 'every output line is JSON-RPC 2.0').toEqual([]);
    return value;
  } finally {
    await session.close();
    // Let late rejections surface before judging this run.
    await tick();
    await tick();
    expect(crashes.slice(before), 'no uncaught exception or unhandled rejection').toEqual([]);
  }
}

// ---------------------------------------------------------------------------------------------
// Well-formed messages and the probes

const PROBE_HANDSHAKE = 'probe:handshake';
const PROBE_INIT = 'probe:init';
const PROBE_CALL = 'probe:call';
const PROBE_PING = 'probe:ping';
const PROTOCOL_VERSION = '2025-11-25';

const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const initializeLine = (id: RequestId) =>
  line({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'fuzz', version: '1' },
    },
  });
const initializedLine = line({ jsonrpc: '2.0', method: 'notifications/initialized' });
const countCallLine = (id: RequestId) =>
  line({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'xml_query', arguments: { xml: '<r><a/><a/></r>', xpath: 'count(//a)' } },
  });
const pingLine = (id: RequestId) => line({ jsonrpc: '2.0', id, method: 'ping' });

function expectInitialized(response: Response): void {
  expect(response.error, JSON.stringify(response)).toBeUndefined();
  expect(response.result).toMatchObject({
    protocolVersion: PROTOCOL_VERSION,
    serverInfo: { name: 'oxml-mcp' },
    capabilities: { tools: {} },
  });
}

function expectCountOfTwo(response: Response): void {
  expect(response.error, JSON.stringify(response)).toBeUndefined();
  const result = response.result as { isError?: boolean; content: Array<{ type: string; text: string }> };
  expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
  expect(result.content).toEqual([{ type: 'text', text: '2' }]);
  expect(result).toMatchObject({ structuredContent: { type: 'number', values: ['2'] } });
}

// ---------------------------------------------------------------------------------------------
// Hostile input generators

/** A JSON token written as is (numbers JSON.stringify cannot produce, duplicate keys...). */
class Raw {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}
/** An object as ordered entries, so `__proto__` and duplicate keys survive to the wire. */
class Entries {
  readonly entries: Array<[string, unknown]>;
  constructor(entries: Array<[string, unknown]>) {
    this.entries = entries;
  }
}
const MISSING = Symbol('missing');

/** Bytes that fast-check prints as a short description, so counterexamples stay readable. */
interface Described {
  bytes: Buffer;
  [fc.toStringMethod]: () => string;
}
const described = (bytes: Buffer | string, description: string): Described => ({
  bytes: Buffer.from(bytes),
  [fc.toStringMethod]: () => description,
});
const head = (bytes: Uint8Array) => JSON.stringify(Buffer.from(bytes.subarray(0, 24)).toString('latin1'));
/** One line of input as generated. */
type Part = string | Uint8Array | Described;

function toJson(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  const entries =
    value instanceof Entries
      ? value.entries
      : typeof value === 'object' && value !== null
        ? Object.entries(value)
        : undefined;
  if (entries)
    return `{${entries
      .filter(([, v]) => v !== MISSING)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

const rawNumbers = [
  '1e400',
  '-1e400',
  '-0',
  '1.0',
  '0.5',
  '1E2',
  '123456789012345678901234567890',
  '9007199254740993',
];
const trickyKeys = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'then',
  'id',
  'method',
  'jsonrpc',
  'params',
  '_meta',
  'progressToken',
  'requestId',
  '',
];
const knownMethods = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/message',
  'server/discover',
  'resources/list',
  'logging/setLevel',
  'completion/complete',
  'subscriptions/listen',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'rpc.discover',
  '',
];

const key = fc.oneof(fc.constantFrom(...trickyKeys), fc.string({ maxLength: 8 }));
const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 16 }),
  fc.string({ unit: 'binary', maxLength: 16 }),
  fc.constantFrom(...rawNumbers.map((text) => new Raw(text))),
);
const { value: anyValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'value' },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc
      .array(fc.tuple(key, tie('value')), { maxLength: 4 })
      .map((entries) => new Entries(entries as Array<[string, unknown]>)),
  ),
}));
/** Anything at all in a field, including leaving it out. */
const anyField = fc.oneof(anyValue, fc.constant(MISSING));
const objectOf = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc.record(fields).map((record) => new Entries(Object.entries(record)));

const jsonrpcField = fc.oneof(
  fc.constant('2.0'),
  fc.constant(MISSING),
  fc.constantFrom<unknown>('1.0', '2', 2, 2.5, null, true, '', ' 2.0', '2.0\u0000', new Raw('2.0'), []),
  anyValue,
);
const idField = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.string({ maxLength: 12 }),
  fc.constant(MISSING),
  fc.constantFrom<unknown>(null, true, false, 1.5, -0.25, {}, [], [1], { id: 1 }),
  fc.constantFrom(...rawNumbers.map((text) => new Raw(text))),
  anyValue,
);
const methodField = fc.oneof(
  fc.constantFrom<unknown>(...knownMethods),
  fc.string({ maxLength: 16 }),
  fc.constant(MISSING),
  fc.constantFrom<unknown>(1, 0, -1, 1.5, null, true, {}, [], ['ping']),
  anyValue,
);
const argumentsField = fc.oneof(
  anyField,
  objectOf({
    xml: fc.oneof(
      anyField,
      fc.constantFrom('<r><a/><a/></r>', '<r>', '', '<!DOCTYPE r [<!ENTITY e "x">]><r>&e;</r>'),
    ),
    xpath: fc.oneof(anyField, fc.constantFrom('count(//a)', '//[', '', 'string(/)')),
    namespaces: anyField,
    max_chars: anyField,
  }),
);
const paramsField = fc.oneof(
  anyField,
  fc.constantFrom<unknown>('params', 1, [], [1, 2], null, true, {}),
  objectOf({
    name: fc.oneof(anyField, fc.constantFrom('xml_query', 'xml_check', 'nope')),
    arguments: argumentsField,
  }),
  objectOf({
    protocolVersion: fc.oneof(anyField, fc.constantFrom('2025-11-25', '2024-11-05', '1999-01-01', '')),
    capabilities: anyField,
    clientInfo: fc.oneof(anyField, objectOf({ name: anyField, version: anyField })),
  }),
  objectOf({ requestId: anyField, reason: anyField }),
  objectOf({ _meta: fc.oneof(anyField, objectOf({ progressToken: anyField })), cursor: anyField }),
);
/** A JSON object shaped like a JSON-RPC message with any field wrong or missing. */
const wrongShapeMessage = fc
  .record({
    jsonrpc: jsonrpcField,
    id: idField,
    method: methodField,
    params: paramsField,
    result: fc.oneof({ weight: 4, arbitrary: fc.constant(MISSING) }, anyValue),
    error: fc.oneof({ weight: 4, arbitrary: fc.constant(MISSING) }, anyValue),
  })
  .map((fields) => toJson(fields));
/** Valid messages the mutations below start from (none uses the probes' ids). */
const validMessages: Array<Record<string, unknown>> = [
  JSON.parse(initializeLine(61)),
  JSON.parse(countCallLine(62)),
  JSON.parse(pingLine(63)),
  { jsonrpc: '2.0', id: 64, method: 'tools/list', params: { cursor: 'c' } },
  { jsonrpc: '2.0', id: 65, method: 'tools/call', params: { name: 'xml_check', arguments: { xml: '<r/>' } } },
  JSON.parse(initializedLine),
  { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 62, reason: 'x' } },
  { jsonrpc: '2.0', id: 66, result: {} },
  { jsonrpc: '2.0', id: 67, error: { code: -1, message: 'm' } },
];
/** A valid message with one to three fields (top-level or in params) replaced or removed. */
const mutatedMessage = fc
  .tuple(
    fc.constantFrom(...validMessages),
    fc.array(
      fc.tuple(
        fc.oneof(fc.constantFrom('jsonrpc', 'id', 'method', 'params', 'result', 'error'), {
          weight: 3,
          arbitrary: fc.constantFrom(
            'params.name',
            'params.arguments',
            'params.protocolVersion',
            'params.capabilities',
            'params.clientInfo',
            'params.clientInfo.name',
            'params.requestId',
            'params.reason',
            'params.cursor',
            'params._meta',
            'params._meta.progressToken',
            'params.arguments.xml',
            'params.arguments.xpath',
            'params.arguments.namespaces',
            'params.arguments.max_chars',
            'params.arguments.extra',
          ),
        }),
        fc.oneof(fc.constant(MISSING), anyValue, idField),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  )
  .map(([base, edits]) => {
    const message = structuredClone(base);
    for (const [path, value] of edits) {
      const keys = path.split('.');
      let target: Record<string, unknown> = message;
      for (const k of keys.slice(0, -1)) {
        const next = target[k];
        if (typeof next !== 'object' || next === null || Array.isArray(next)) target[k] = {};
        target = target[k] as Record<string, unknown>;
      }
      target[keys[keys.length - 1] as string] = value;
    }
    return toJson(message);
  });
/** A JSON text that is valid but not a message object: scalars, arrays, batches. */
const wrongTopLevel = fc.oneof(
  scalar.map(toJson),
  fc.array(anyValue, { maxLength: 4 }).map(toJson),
  fc.array(wrongShapeMessage, { minLength: 1, maxLength: 3 }).map((texts) => `[${texts.join(',')}]`),
  fc.constantFrom('[]', '""', '0', 'null', 'true', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]'),
);
/** A message text cut short at a byte boundary (possibly inside a multi-byte character). */
const truncatedJson = fc
  .tuple(
    fc.oneof(
      wrongShapeMessage,
      fc.constantFrom(initializeLine(7), countCallLine(8), pingLine('x')).map((text) => text.trim()),
      fc.constant(
        toJson({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { arguments: { xml: 'é😀中' } } }),
      ),
    ),
    fc.nat(),
  )
  .filter(([text]) => text.startsWith('{') && Buffer.byteLength(text) > 1)
  .map(([text, cut]) => {
    const bytes = Buffer.from(text);
    return bytes.subarray(0, 1 + (cut % (bytes.length - 1)));
  });
/** Random bytes, biased towards the ones framing and UTF-8 decoding care about. */
const randomBytes = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom(
        0x00,
        0x0d,
        0x0a,
        0x20,
        0x7b,
        0x7d,
        0x22,
        0x5c,
        0x80,
        0xbf,
        0xc0,
        0xc3,
        0xed,
        0xa0,
        0xef,
        0xbb,
        0xff,
      ),
    ),
    { maxLength: 600 },
  )
  .map((bytes) => Buffer.from(bytes));
/** Valid messages with carriage returns and NULs sprinkled in (valid JSON whitespace or not). */
const sprinkled = fc
  .tuple(
    fc.constantFrom(pingLine(41), pingLine('x'), countCallLine(42)).map((text) => text.trim()),
    fc.array(fc.tuple(fc.nat(), fc.constantFrom('\r', '\u0000', '\r\r', ' \r ', '\t', '\ufeff')), {
      maxLength: 4,
    }),
  )
  .map(([text, inserts]) => {
    let out = text;
    for (const [at, what] of inserts) {
      const i = at % (out.length + 1);
      out = out.slice(0, i) + what + out.slice(i);
    }
    return out;
  });
/** Deep nesting in several places of a message, balanced or not. */
const deeplyNested = fc
  .record({
    depth: fc.integer({ min: 100, max: 100_000 }),
    kind: fc.constantFrom('array', 'object'),
    where: fc.constantFrom(
      'top',
      'params',
      'id',
      'arguments',
      'meta',
      'result',
      'notification',
      'capabilities',
    ),
    balanced: fc.boolean(),
  })
  .map(({ depth, kind, where, balanced }) => {
    const open = kind === 'array' ? '[' : '{"a":';
    const close = kind === 'array' ? ']' : '}';
    const nest = open.repeat(depth) + (kind === 'array' ? '' : '1') + (balanced ? close.repeat(depth) : '');
    const description = `nested(${depth} ${kind}s in ${where}${balanced ? '' : ', unclosed'})`;
    return described(nestIn(where, nest), description);
  });
function nestIn(where: string, nest: string): string {
  switch (where) {
    case 'top':
      return nest;
    case 'params':
      return `{"jsonrpc":"2.0","id":51,"method":"tools/call","params":${nest}}`;
    case 'id':
      return `{"jsonrpc":"2.0","id":${nest},"method":"ping"}`;
    case 'arguments':
      return `{"jsonrpc":"2.0","id":52,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":${nest},"xpath":"1"}}}`;
    case 'meta':
      return `{"jsonrpc":"2.0","id":53,"method":"tools/list","params":{"_meta":${nest}}}`;
    case 'notification':
      return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":${nest}}}`;
    case 'capabilities':
      return `{"jsonrpc":"2.0","id":55,"method":"initialize","params":{"protocolVersion":"${PROTOCOL_VERSION}","capabilities":${nest},"clientInfo":{"name":"a","version":"1"}}}`;
    default:
      return `{"jsonrpc":"2.0","id":54,"result":${nest}}`;
  }
}
const blankish = fc.constantFrom('', ' ', '\r', '\t', '\r\r', '\u0000', '\ufeff', '\u00a0', '\u2028');

/** One hostile line (its terminating newline is added when the stream is assembled). */
const hostileLine: fc.Arbitrary<Part> = fc.oneof(
  { arbitrary: randomBytes, weight: 3 },
  { arbitrary: truncatedJson, weight: 3 },
  { arbitrary: wrongShapeMessage, weight: 3 },
  { arbitrary: mutatedMessage, weight: 4 },
  { arbitrary: wrongTopLevel, weight: 2 },
  { arbitrary: sprinkled, weight: 1 },
  { arbitrary: deeplyNested, weight: 1 },
  { arbitrary: blankish, weight: 1 },
);

/** How the assembled byte stream is cut into writes. */
type Chunking = { kind: 'one' } | { kind: 'lines' } | { kind: 'bytes' } | { kind: 'cuts'; at: number[] };
const chunking: fc.Arbitrary<Chunking> = fc.oneof(
  fc.constant({ kind: 'one' } as const),
  fc.constant({ kind: 'lines' } as const),
  fc.constant({ kind: 'bytes' } as const),
  fc.array(fc.nat(), { minLength: 1, maxLength: 48 }).map((at) => ({ kind: 'cuts', at }) as const),
);

const toBytes = (part: Part): Buffer =>
  typeof part === 'string' ? Buffer.from(part) : part instanceof Uint8Array ? Buffer.from(part) : part.bytes;

/** Cuts the stream of `parts` into writes; `lines` keeps each part as one write. */
function chunk(parts: Part[], how: Chunking): Buffer[] {
  const pieces = parts.map(toBytes);
  if (how.kind === 'lines') return pieces;
  const all = Buffer.concat(pieces);
  if (how.kind === 'one') return [all];
  // Byte-at-a-time only on small streams; larger ones get cut in 4 KiB steps instead.
  const cuts =
    how.kind === 'bytes'
      ? Array.from({ length: all.length - 1 }, (_, i) =>
          all.length <= 8192 ? i + 1 : (i + 1) * 4096,
        ).filter((at) => at < all.length)
      : [...new Set(how.at.map((at) => at % (all.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const at of cuts) {
    if (at <= start) continue;
    chunks.push(all.subarray(start, at));
    start = at;
  }
  chunks.push(all.subarray(start));
  return chunks;
}

/** Lines of the prefix joined so each ends with a newline: nothing can run into the probe. */
const framed = (lines: Part[]) => lines.flatMap((part) => [part, '\n']);

/** Null-id replies so far, and a `doomed` test for waitFor: more of them than `allowed`. */
const nullReplies = (responses: Response[]) => responses.filter((r) => r.id === null).length;
const moreNullRepliesThan = (allowed: number) => (responses: Response[]) => nullReplies(responses) > allowed;

/**
 * Non-blank lines the transport will see in `bytes` (an upper bound on the replies they earn):
 * blank as JSON counts whitespace (space, tab, CR), as the transport does; a line of NBSP or
 * U+3000 is a line it answers (-32700), as HTTP does.
 */
function nonBlankLines(bytes: Buffer): number {
  return bytes
    .toString('utf8')
    .split('\n')
    .filter((text) => text.replace(/^[ \t\r]+|[ \t\r]+$/g, '') !== '').length;
}

// ---------------------------------------------------------------------------------------------
// Properties

describe('stdio transport under hostile input (property-based)', { timeout: TEST_TIMEOUT_MS }, () => {
  it('answers a well-formed initialize or tools/call after any hostile prefix', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(hostileLine, { maxLength: 16 }),
        chunking,
        async (handshakeFirst, prefix, how) => {
          await withSession({}, async (session) => {
            const hostile = framed(prefix);
            const parts = handshakeFirst
              ? [initializeLine(PROBE_HANDSHAKE), initializedLine, ...hostile, countCallLine(PROBE_CALL)]
              : [...hostile, initializeLine(PROBE_INIT), initializedLine, countCallLine(PROBE_CALL)];
            await session.write(chunk(parts, how));
            const hostileLines = nonBlankLines(Buffer.concat(hostile.map(toBytes)));
            const doomed = moreNullRepliesThan(hostileLines);

            expectInitialized(await session.waitFor(handshakeFirst ? PROBE_HANDSHAKE : PROBE_INIT, doomed));
            expectCountOfTwo(await session.waitFor(PROBE_CALL, doomed));
            // A barrier: everything before it has been read and its synchronous replies written.
            await session.write([Buffer.from(pingLine(PROBE_PING))]);
            expect((await session.waitFor(PROBE_PING)).result).toEqual({});

            for (const probe of [PROBE_INIT, PROBE_CALL, PROBE_PING, PROBE_HANDSHAKE])
              expect(session.responsesTo(probe).length).toBeLessThanOrEqual(1);
            // At most one reply per hostile line, besides the three probes.
            expect(session.responses.length - 3).toBeLessThanOrEqual(hostileLines);
            // The server starts nothing but progress for a hostile call that asked for it.
            for (const m of session.serverMessages) expect(m.method).toBe('notifications/progress');
          });
        },
      ),
      params(250),
    );
  });

  it('writes no reply for a notification, and exactly one error per bad line', async () => {
    type Item = { kind: 'notification' | 'parse' | 'shape'; text: string | Uint8Array };
    const notificationMethod = fc.oneof(
      fc.constantFrom(
        'notifications/initialized',
        'notifications/cancelled',
        'notifications/progress',
        'notifications/roots/list_changed',
        'notifications/message',
        'tools/call',
        'initialize',
        'ping',
        '__proto__',
        '',
      ),
      fc.string({ maxLength: 16 }),
    );
    const notification = fc
      .record({
        jsonrpc: fc.constant('2.0'),
        method: notificationMethod,
        params: fc.oneof(
          fc.constant(MISSING),
          fc.array(fc.tuple(key, anyValue), { maxLength: 4 }).map((entries) => new Entries(entries)),
          objectOf({ requestId: fc.oneof(fc.integer(), fc.string(), anyValue), reason: anyField }),
          objectOf({ progressToken: anyValue, progress: anyValue }),
        ),
      })
      .filter(({ params }) => !(params instanceof Entries) || !params.entries.some(([k]) => k === '_meta'))
      .map((fields): Item => ({ kind: 'notification', text: toJson(fields) }));
    const item: fc.Arbitrary<Item> = fc.oneof(
      { arbitrary: notification, weight: 4 },
      { arbitrary: truncatedJson.map((text): Item => ({ kind: 'parse', text })), weight: 2 },
      {
        arbitrary: fc
          .oneof(scalar.map(toJson), fc.array(anyValue, { maxLength: 3 }).map(toJson))
          .map((text): Item => ({ kind: 'shape', text })),
        weight: 1,
      },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(item, { maxLength: 16 }),
        chunking,
        async (handshakeFirst, items, how) => {
          await withSession({}, async (session) => {
            const head = handshakeFirst ? [initializeLine(PROBE_HANDSHAKE), initializedLine] : [];
            await session.write(
              chunk([...head, ...framed(items.map((i) => i.text)), pingLine(PROBE_PING)], how),
            );
            const expected = items
              .filter((i) => i.kind !== 'notification')
              .map((i) => (i.kind === 'parse' ? -32700 : -32600));
            const doomed = moreNullRepliesThan(expected.length);
            expect((await session.waitFor(PROBE_PING, doomed)).result).toEqual({});
            if (handshakeFirst) expectInitialized(await session.waitFor(PROBE_HANDSHAKE, doomed));

            const others = session.responses.filter((r) => r.id !== PROBE_PING && r.id !== PROBE_HANDSHAKE);
            // Bad lines are answered synchronously in input order; notifications never.
            expect(others.map((r) => [r.id, r.error?.code])).toEqual(expected.map((code) => [null, code]));
            expect(session.serverMessages).toEqual([]);
          });
        },
      ),
      params(120),
    );
  });

  it('skips an oversized line with one error reply (the id its start shows, else null) and serves the next line', async () => {
    const MAX = 256;
    const SKIPPED_ID = 'too-long';
    type Pad = 'none' | 'spaces' | 'cr';
    type Oversized = { kind: 'oversized'; line: Described; id: string | null };
    type Generated = Oversized | { kind: 'request'; call: boolean; pad: Pad };
    type Item = Oversized | { kind: 'ping' | 'call'; id: string; line: Described };
    const oversized = fc
      .record({
        extra: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 8 * MAX })),
        fill: fc.oneof(
          randomBytes.map((b) => b.filter((byte) => byte !== 0x0a)),
          fc.constant(Buffer.from(pingLine(SKIPPED_ID).trim())),
        ),
      })
      .map(({ extra, fill }): Generated => {
        // Random bytes never start like `{"jsonrpc":"2.0","id":...,` (fast-check's seeds are fixed).
        const bytes = Buffer.alloc(MAX + extra, 0x20);
        if (fill.length > 0)
          for (let i = 0; i < bytes.length; i++) bytes[i] = fill[i % fill.length] as number;
        return {
          kind: 'oversized',
          line: described(bytes, `oversized(${bytes.length} bytes: ${head(bytes)}...)`),
          id: bytes.subarray(0, 8).toString() === '{"jsonrp' ? SKIPPED_ID : null,
        };
      });
    // Well-formed requests, sometimes padded to exactly the limit (which must still be served).
    const request = fc
      .record({ call: fc.boolean(), pad: fc.constantFrom<Pad>('none', 'spaces', 'cr') })
      .map(({ call, pad }): Generated => ({ kind: 'request', call, pad }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(oversized, request), { minLength: 1, maxLength: 12 }),
        chunking,
        async (generated, how) => {
          let n = 0;
          const items: Item[] = generated.map((g) => {
            if (g.kind === 'oversized') return g;
            const id = `r${n++}`;
            const text = (g.call ? countCallLine(id) : pingLine(id)).trim();
            const padded =
              g.pad === 'none'
                ? text
                : g.pad === 'spaces'
                  ? text.padEnd(MAX, ' ')
                  : `${text.padEnd(MAX - 1, ' ')}\r`;
            return { kind: g.call ? 'call' : 'ping', id, line: described(padded, JSON.stringify(padded)) };
          });
          for (const i of items)
            if (i.kind !== 'oversized') expect(i.line.bytes.length).toBeLessThanOrEqual(MAX);

          await withSession({ maxLineBytes: MAX }, async (session) => {
            const parts = [initializeLine(PROBE_INIT), initializedLine, ...framed(items.map((i) => i.line))];
            await session.write(chunk([...parts, countCallLine(PROBE_CALL)], how));
            const skipped = items.filter((i): i is Oversized => i.kind === 'oversized');
            const doomed = moreNullRepliesThan(skipped.length);
            const isSkipReply = (r: Response) => r.id === null || r.id === SKIPPED_ID;
            expectInitialized(await session.waitFor(PROBE_INIT, doomed));
            expectCountOfTwo(await session.waitFor(PROBE_CALL, doomed));

            let oversizedSoFar = 0;
            for (const i of items) {
              if (i.kind === 'oversized') {
                oversizedSoFar++;
                continue;
              }
              const response = await session.waitFor(i.id, doomed);
              if (i.kind === 'call') expectCountOfTwo(response);
              else expect(response.result).toEqual({});
              expect(session.responsesTo(i.id)).toHaveLength(1);
              // The skip reply is written as soon as the line overflows, so it precedes the answer.
              const before = session.responses.slice(0, session.responses.indexOf(response));
              expect(before.filter(isSkipReply).length).toBeGreaterThanOrEqual(oversizedSoFar);
            }
            const skipReplies = session.responses.filter(isSkipReply);
            expect(skipReplies.map((r) => r.id)).toEqual(skipped.map((i) => i.id));
            for (const r of skipReplies) expect(r.error?.code).toBe(-32600);
            // One answer per request, one skip reply per oversized line, and the two probes.
            expect(session.responses).toHaveLength(items.length + 2);
          });
        },
      ),
      params(120),
    );
  });

  it('survives lines of several MiB, with or without a newline in sight', async () => {
    const huge = fc
      .record({
        size: fc.integer({ min: 1, max: 4 * 1024 * 1024 }),
        kind: fc.constantFrom('garbage', 'open-json', 'valid-ping'),
        pattern: randomBytes.map((b) => b.filter((byte) => byte !== 0x0a)),
      })
      .map(({ size, kind, pattern }) => {
        if (kind === 'valid-ping') {
          const text = `{"jsonrpc":"2.0","id":"huge","method":"ping","params":{"pad":"${'x'.repeat(size)}"}}`;
          return { kind, line: described(text, `valid-ping(pad of ${size} bytes)`) };
        }
        const bytes = Buffer.alloc(size, 0x61);
        if (kind === 'open-json') bytes.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"');
        else if (pattern.length > 0)
          for (let i = 0; i < Math.min(size, 65536); i++) bytes[i] = pattern[i % pattern.length] as number;
        return { kind, line: described(bytes, `${kind}(${size} bytes: ${head(bytes)}...)`) };
      });
    await fc.assert(
      fc.asyncProperty(fc.array(huge, { minLength: 1, maxLength: 2 }), chunking, async (lines, how) => {
        await withSession({}, async (session) => {
          const parts = [...framed(lines.map((l) => l.line)), initializeLine(PROBE_INIT), initializedLine];
          await session.write(chunk([...parts, countCallLine(PROBE_CALL)], how));
          const doomed = moreNullRepliesThan(lines.length);
          expectInitialized(await session.waitFor(PROBE_INIT, doomed));
          expectCountOfTwo(await session.waitFor(PROBE_CALL, doomed));
          const pings = lines.filter((l) => l.kind === 'valid-ping').length;
          expect(session.responsesTo('huge')).toHaveLength(pings);
          // Both lines may carry the id "huge": one sent while the other is under way is refused.
          for (const r of session.responsesTo('huge')) {
            if (r.error) expect(r.error.message).toContain('already used by a request still under way');
            else expect(r.result).toEqual({});
          }
          if (pings > 0) expect(session.responsesTo('huge').some((r) => r.result !== undefined)).toBe(true);
          expect(session.responses.length).toBeLessThanOrEqual(lines.length + 2);
        });
      }),
      params(8),
    );
  });

  it('answers a request split at any byte, even inside a multi-byte character', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .string({ unit: 'grapheme', minLength: 1, maxLength: 8 })
          .filter((s) => [...s].every((c) => c >= ' ' && !'<&]\ufffe\uffff'.includes(c))),
        fc.array(fc.nat(), { minLength: 1, maxLength: 16 }),
        async (text, at) => {
          await withSession({}, async (session) => {
            const call = line({
              jsonrpc: '2.0',
              id: PROBE_CALL,
              method: 'tools/call',
              params: {
                name: 'xml_query',
                arguments: { xml: `<r><a>${text}</a><a/></r>`, xpath: 'string(//a)' },
              },
            });
            await session.write(
              chunk([initializeLine(PROBE_INIT), initializedLine, call], { kind: 'cuts', at }),
            );
            const doomed = moreNullRepliesThan(0);
            expectInitialized(await session.waitFor(PROBE_INIT, doomed));
            const response = await session.waitFor(PROBE_CALL, doomed);
            expect(response.result).toMatchObject({
              structuredContent: { type: 'string', values: [text] },
            });
          });
        },
      ),
      params(40),
    );
  });
});
