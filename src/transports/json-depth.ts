import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-bytes.js';

/**
 * Whether JSON text nests arrays and objects more than `limit` levels deep (a bare `[]` is one
 * level), read from the text itself: one pass that jumps from quote to quote through strings,
 * and stops at the first bracket past the limit. Reading the parsed value instead means
 * enumerating every key of every object, ~1 s for one argument of a million keys (V8 keeps such
 * an object as a dictionary). Meant for text JSON.parse accepted; on other text it may say
 * anything.
 */
export function textNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      depth--;
    } else if (code === QUOTE) {
      at = closingQuote(text, at);
    }
  }
  return false;
}

/** The index of the quote that ends the string opened at `open`: one preceded by an even run of backslashes. */
function closingQuote(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote > 0) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}
