import { BACKSLASH, CLOSE_BRACE, COLON, COMMA, OPEN_BRACE, QUOTE } from './json-bytes.js';
import type { RequestId } from './jsonrpc-lines.js';

/** How much of a line's start is read for its id: the keys before `params` fit in far less. */
export const LEADING_ID_BYTES = 256;

const ID_KEY = 'id';
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/**
 * The id of a message that will not be parsed (an over-long line), read from its first bytes so
 * that its error reply can carry it: a client matches replies by id, and one that gets `null`
 * waits for its own time-out. Reads `{"key":scalar,...` from the start while every key and
 * string is plain (no escapes) and every value before `id` is a scalar; anything else, such as
 * `params` first, an object value, or the end of `head`, gives `null`, as if nothing were known.
 */
export function leadingId(head: Uint8Array): RequestId | null {
  const bytes = head.subarray(0, LEADING_ID_BYTES);
  let at = skipSpace(bytes, 0);
  if (bytes[at] !== OPEN_BRACE) return null;
  at++;
  for (;;) {
    const key = readPlainString(bytes, skipSpace(bytes, at));
    if (!key) return null;
    at = skipSpace(bytes, key.end);
    if (bytes[at] !== COLON) return null;
    const value = readScalar(bytes, skipSpace(bytes, at + 1));
    if (!value) return null;
    at = skipSpace(bytes, value.end);
    // A value is complete only once the byte after it is seen.
    if (bytes[at] !== COMMA && bytes[at] !== CLOSE_BRACE) return null;
    if (key.text === ID_KEY) return typeof value.id === 'undefined' ? null : value.id;
    if (bytes[at] === CLOSE_BRACE) return null;
    at++;
  }
}

interface Token {
  end: number;
}

function skipSpace(bytes: Uint8Array, at: number): number {
  let i = at;
  while (
    i < bytes.length &&
    (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0d || bytes[i] === 0x0a)
  )
    i++;
  return i;
}

/** A string with no escapes starting at `at`, decoded; undefined for anything else. */
function readPlainString(bytes: Uint8Array, at: number): (Token & { text: string }) | undefined {
  if (bytes[at] !== QUOTE) return undefined;
  for (let i = at + 1; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (byte === BACKSLASH || byte < 0x20) return undefined;
    if (byte === QUOTE)
      return {
        end: i + 1,
        text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(at + 1, i)),
      };
  }
  return undefined;
}

/**
 * A scalar value starting at `at`: a plain string or a number (which could be an id), or
 * `true`, `false`, `null` (which cannot). Undefined for an object, an array or anything cut off.
 */
function readScalar(bytes: Uint8Array, at: number): (Token & { id?: RequestId }) | undefined {
  const string = readPlainString(bytes, at);
  if (string) return { end: string.end, id: string.text };
  let end = at;
  while (end < bytes.length && !isDelimiter(bytes[end] as number)) end++;
  if (end === bytes.length) return undefined;
  const text = String.fromCharCode(...bytes.subarray(at, end));
  if (text === 'true' || text === 'false' || text === 'null') return { end };
  if (!NUMBER.test(text)) return undefined;
  const number = Number(text);
  return Number.isFinite(number) ? { end, id: number } : { end };
}

function isDelimiter(byte: number): boolean {
  return (
    byte === COMMA || byte === CLOSE_BRACE || byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a
  );
}
