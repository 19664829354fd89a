/**
 * Lifting document arguments out of a tools/call line as bytes must read every line exactly as
 * `JSON.parse` would, with each document's bytes equal to the UTF-8 encoding of its string, or
 * leave the line to the ordinary path (undefined). Never anything else, and never a throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiftedDocument } from '../../src/lifted-document.js';
import { MAX_JSON_NESTING } from '../../src/limits.js';
import { parseLineLiftingDocuments } from '../../src/transports/lift-documents.js';

const call = (args: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'xml_validate', arguments: args, ...extra },
  ...(extra.top as object | undefined),
});
const line = (text: string) => Buffer.from(text, 'utf8');
const lift = (message: unknown) => parseLineLiftingDocuments(line(JSON.stringify(message)));

/** What the ordinary path reads, with the lifted documents turned back into their strings. */
function unlifted(value: unknown): unknown {
  if (value instanceof LiftedDocument) return Buffer.from(value.bytes).toString('utf8');
  if (Array.isArray(value)) return value.map(unlifted);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, unlifted(inner)]));
  return value;
}

function liftedBytes(message: Record<string, unknown> | undefined, argument: string): Buffer {
  expect(message).toBeDefined();
  const params = (message as { params: { arguments: Record<string, unknown> } }).params;
  const value = params.arguments[argument];
  expect(value).toBeInstanceOf(LiftedDocument);
  return Buffer.from((value as LiftedDocument).bytes);
}

/** Strings with everything JSON escapes: quotes, backslashes, controls, non-ASCII, astral pairs. */
const wellFormedText = fc.string({ unit: 'grapheme', maxLength: 200 }).chain((base) =>
  fc
    .array(
      fc.constantFrom(
        '"',
        '\\',
        '/',
        '\n',
        '\r',
        '\t',
        '\b',
        '\f',
        '\u0000',
        '\u001f',
        'é',
        '中',
        '😀',
        '\u2028',
      ),
      {
        maxLength: 20,
      },
    )
    .map((extra) => base + extra.join('')),
);

describe('parseLineLiftingDocuments', () => {
  it('lifts xml and xsd as their UTF-8 bytes and leaves the rest as JSON.parse reads it', () => {
    fc.assert(
      fc.property(wellFormedText, wellFormedText, wellFormedText, (xml, xsd, xpath) => {
        const message = call(
          { xml, xsd, xpath, namespaces: { p: 'urn:p' } },
          { _meta: { progressToken: 3 } },
        );
        const lifted = lift(message);
        expect(lifted).toBeDefined();
        expect(liftedBytes(lifted, 'xml').equals(Buffer.from(xml, 'utf8'))).toBe(true);
        expect(liftedBytes(lifted, 'xsd').equals(Buffer.from(xsd, 'utf8'))).toBe(true);
        expect(unlifted(lifted)).toEqual(message);
      }),
      { numRuns: 300 },
    );
  });

  it('reads \\u escapes, surrogate pairs in either case, and whitespace between tokens', () => {
    const text =
      ' { "jsonrpc" : "2.0" ,\t"id":"a", "method":"tools/call",\r"params" : { "arguments" : ' +
      '{ "xpath":"x", "xml" : "<a>\\u00e9\\u4E2D\\ud83d\\uDE00\\u0041\\"\\/</a>" }, "name":"xml_query" } } ';
    const lifted = parseLineLiftingDocuments(line(text));
    expect(liftedBytes(lifted, 'xml').toString('utf8')).toBe('<a>é中😀A"/</a>');
    expect(unlifted(lifted)).toEqual(JSON.parse(text));
  });

  it.each([
    ['a lone high surrogate', '{"method":"tools/call","params":{"arguments":{"xml":"a\\ud800b"}}}'],
    ['a lone low surrogate', '{"method":"tools/call","params":{"arguments":{"xml":"a\\udc00"}}}'],
    [
      'a high surrogate before a non-surrogate',
      '{"method":"tools/call","params":{"arguments":{"xml":"\\ud800\\u0041"}}}',
    ],
    ['a raw control character', '{"method":"tools/call","params":{"arguments":{"xml":"a\tb"}}}'],
    ['an unknown escape', '{"method":"tools/call","params":{"arguments":{"xml":"a\\xb"}}}'],
    ['a short \\u escape', '{"method":"tools/call","params":{"arguments":{"xml":"a\\u12"}}}'],
    ['an unterminated document', '{"method":"tools/call","params":{"arguments":{"xml":"<a>'],
    ['trailing text', '{"method":"tools/call","params":{"arguments":{"xml":"<a/>"}}} x'],
    ['another method', '{"method":"tools/list","params":{"arguments":{"xml":"<a/>"}}}'],
    ['no method', '{"params":{"arguments":{"xml":"<a/>"}}}'],
    ['no document', '{"method":"tools/call","params":{"arguments":{"xpath":"1"}}}'],
    ['a repeated document key', '{"method":"tools/call","params":{"arguments":{"xml":"<a/>","xml":"<b/>"}}}'],
    [
      'a repeated params key',
      '{"method":"tools/call","params":{"arguments":{"xml":"<a/>"}},"params":{"arguments":{}}}',
    ],
    [
      'a key written with escapes',
      '{"method":"tools/call","params":{"arguments":{"xml":"<a/>","\\u0078ml":"<b/>"}}}',
    ],
    ['a document that is not a string', '{"method":"tools/call","params":{"arguments":{"xml":["<a/>"]}}}'],
    ['invalid JSON elsewhere', '{"method":"tools/call","params":{"arguments":{"xml":"<a/>","xpath":tru}}}'],
    ['an array at the top', '[{"method":"tools/call","params":{"arguments":{"xml":"<a/>"}}}]'],
  ])('leaves %s to the ordinary path', (_what, text) => {
    expect(parseLineLiftingDocuments(line(text))).toBeUndefined();
  });

  it('finds a raw control character, an escape or the end at any offset within a word', () => {
    for (let offset = 0; offset < 12; offset++) {
      const head = '{"method":"tools/call","params":{"arguments":{"xml":"';
      const body = 'é'.repeat(offset) + 'abcdefgh'.repeat(3);
      const control = `${head}${body}\u0001${body}"}}}`;
      expect(parseLineLiftingDocuments(line(control))).toBeUndefined();
      const escaped = `${head}${body}\\n${body}"}}}`;
      expect(liftedBytes(parseLineLiftingDocuments(line(escaped)), 'xml').toString()).toBe(
        `${body}\n${body}`,
      );
      const ends = `${head}${body.slice(0, offset)}"}}}`;
      expect(liftedBytes(parseLineLiftingDocuments(line(ends)), 'xml').toString()).toBe(
        body.slice(0, offset),
      );
    }
  });

  it('leaves a document that is not valid UTF-8 to the ordinary path', () => {
    const bytes = Buffer.concat([
      line('{"method":"tools/call","params":{"arguments":{"xml":"<a>'),
      Buffer.from([0xc3, 0x28, 0xed, 0xa0, 0x80]),
      line('</a>"}}}'),
    ]);
    expect(parseLineLiftingDocuments(bytes)).toBeUndefined();
  });

  it('leaves a line with a whitespace run no client writes to JSON.parse (issue 24, M3)', () => {
    const spaced = (run: number) =>
      `{"method":"tools/call","params":{"arguments":{"xpath":"1",${' '.repeat(run)}"xml":"<a/>"}}}`;
    expect(liftedBytes(parseLineLiftingDocuments(line(spaced(60_000))), 'xml').toString()).toBe('<a/>');
    expect(parseLineLiftingDocuments(line(spaced(70_000)))).toBeUndefined();
  });

  it('skips nested values elsewhere and lifts the document (deeper ones never reach it: json-shape.ts)', () => {
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const text = (levels: number) =>
      `{"method":"tools/call","params":{"_meta":{"x":${deep(levels)}},"arguments":{"xml":"<a/>"}}}`;
    expect(liftedBytes(parseLineLiftingDocuments(line(text(MAX_JSON_NESTING - 3))), 'xml').toString()).toBe(
      '<a/>',
    );
  });

  it('never throws, and what it reads from any mutated line is what JSON.parse reads', () => {
    const base = line(
      JSON.stringify(
        call(
          { xml: '<r a="1">é\n中😀</r>', xsd: '<s/>', xpath: 'count(//r)' },
          { _meta: { p: [1, { q: null }] } },
        ),
      ),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
        (edits) => {
          const bytes = Buffer.from(base);
          for (const [at, byte] of edits) bytes[at % bytes.length] = byte;
          const lifted = parseLineLiftingDocuments(bytes);
          if (lifted === undefined) return;
          expect(unlifted(lifted)).toEqual(JSON.parse(bytes.toString('utf8')));
          for (const argument of ['xml', 'xsd']) {
            const value = (lifted.params as { arguments: Record<string, unknown> }).arguments[argument];
            if (value instanceof LiftedDocument) {
              const text = (
                JSON.parse(bytes.toString('utf8')) as typeof lifted & {
                  params: { arguments: Record<string, string> };
                }
              ).params.arguments[argument] as string;
              expect(Buffer.from(value.bytes).equals(Buffer.from(text, 'utf8'))).toBe(true);
            }
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
