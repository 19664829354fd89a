import { MAX_JSON_MEMBERS, MAX_JSON_NESTING } from '../limits.js';
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from './json-bytes.js';

/** The refusal of a message nested past MAX_JSON_NESTING, the same on every transport. */
export const TOO_DEEP_MESSAGE = `Invalid Request: the message nests JSON deeper than ${MAX_JSON_NESTING} levels; send flatter arguments.`;

/** The refusal of a message with too many members, the same on every transport. */
export const TOO_MANY_MEMBERS_MESSAGE = `Invalid Request: the message holds more than ${MAX_JSON_MEMBERS} JSON members (object keys and array elements); a tool call needs a few dozen, and \`namespaces\` at most a few hundred bindings.`;

/**
 * Why a message's bytes must not be parsed, or undefined when they may be: nested deeper than
 * MAX_JSON_NESTING (a bare `[]` is one level), or, when `countMembers`, holding more than about
 * MAX_JSON_MEMBERS members (counted as the `,` and `:` outside strings, so exact to a factor of
 * two, which is all a bound on cost needs).
 *
 * Read before any `JSON.parse`, because the parse is the cost: 19 MiB of `[` nests builds a value
 * of gigabytes and holds the main thread for seconds before any check of the value could refuse
 * it (docs/security-model.md). One pass, a byte at a time with no call per byte, strings skipped
 * by their quotes and backslashes: 90 MiB of hostile body in 0.1–0.2 s, within 3x of `JSON.parse`
 * on what it reads fastest (spaces) and 4–5x ahead of it on many small strings (docs/benchmarks.md). Meant for valid JSON; on other bytes it may refuse for a reason the
 * parse would have named differently, and otherwise leaves the verdict to the parse.
 */
export function jsonShapeRefusal(bytes: Uint8Array, countMembers: boolean): string | undefined {
  const maxSeparators = countMembers ? 2 * MAX_JSON_MEMBERS : Number.POSITIVE_INFINITY;
  const end = bytes.length;
  let depth = 0;
  let separators = 0;
  for (let at = 0; at < end; at++) {
    const kind = KIND[bytes[at] as number];
    if (kind === ORDINARY) continue;
    if (kind === STRING) {
      for (at++; at < end; at++) {
        const inside = bytes[at];
        if (inside === QUOTE) break;
        if (inside === BACKSLASH) at++;
      }
    } else if (kind === OPENS) {
      if (++depth > MAX_JSON_NESTING) return TOO_DEEP_MESSAGE;
    } else if (kind === CLOSES) {
      depth--;
    } else if (++separators > maxSeparators) {
      return TOO_MANY_MEMBERS_MESSAGE;
    }
  }
  return undefined;
}

// What each byte is to the scan, looked up once per byte: one comparison for the bytes that are
// none of these (spaces, digits, letters), where a chain of seven made a body of spaces 3x slower.
const ORDINARY = 0;
const STRING = 1;
const OPENS = 2;
const CLOSES = 3;
const SEPARATES = 4;
const KIND = new Uint8Array(256);
KIND[QUOTE] = STRING;
KIND[OPEN_BRACKET] = OPENS;
KIND[OPEN_BRACE] = OPENS;
KIND[CLOSE_BRACKET] = CLOSES;
KIND[CLOSE_BRACE] = CLOSES;
KIND[COMMA] = SEPARATES;
KIND[COLON] = SEPARATES;
