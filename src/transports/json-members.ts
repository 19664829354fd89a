import { MAX_JSON_MEMBERS } from '../limits.js';
import { BACKSLASH, COLON, COMMA, QUOTE } from './json-bytes.js';

/** The refusal of a message with too many members, the same on every transport. */
export const TOO_MANY_MEMBERS_MESSAGE = `Invalid Request: the message holds more than ${MAX_JSON_MEMBERS} JSON members (object keys and array elements); a tool call needs a few dozen, and \`namespaces\` at most a few hundred bindings.`;

/**
 * Whether a message's bytes hold more than MAX_JSON_MEMBERS members, read before any parse: one
 * pass that jumps from quote to quote through strings (a native search, so a document string of
 * megabytes costs next to nothing) and counts the separators between them, stopping at the first
 * one past the bound. For valid JSON; on other bytes it may say anything, and the parse that
 * follows answers them.
 */
export function holdsTooManyMembers(bytes: Uint8Array): boolean {
  const limit = 2 * MAX_JSON_MEMBERS;
  let separators = 0;
  let at = 0;
  while (at < bytes.length) {
    const quote = bytes.indexOf(QUOTE, at);
    const end = quote < 0 ? bytes.length : quote;
    for (let i = at; i < end; i++) {
      const byte = bytes[i];
      if ((byte === COMMA || byte === COLON) && ++separators > limit) return true;
    }
    if (quote < 0) return false;
    at = closingQuote(bytes, quote) + 1;
  }
  return false;
}

/** The index of the quote that ends the string opened at `open`: one preceded by an even run of backslashes. */
function closingQuote(bytes: Uint8Array, open: number): number {
  let quote = bytes.indexOf(QUOTE, open + 1);
  while (quote > 0) {
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = bytes.indexOf(QUOTE, quote + 1);
  }
  return bytes.length;
}
