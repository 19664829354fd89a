import { isUtf8 } from 'node:buffer';
import { DOCUMENT_ARGUMENTS, LiftedDocument } from '../lifted-document.js';
import { MAX_PARSED_JSON_BYTES } from '../limits.js';
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  SPACE,
} from './json-bytes.js';

/** The byte each one-character escape stands for (`\n` → 0x0a …), by the byte after the backslash; 0: none. */
const SHORT_ESCAPES = new Uint8Array(256);
for (const [letter, byte] of [
  ['"', 0x22],
  ['\\', 0x5c],
  ['/', 0x2f],
  ['b', 0x08],
  ['f', 0x0c],
  ['n', 0x0a],
  ['r', 0x0d],
  ['t', 0x09],
] as const) {
  SHORT_ESCAPES[letter.charCodeAt(0)] = byte;
}

interface Name {
  text: string;
  bytes: Uint8Array;
}
const name = (text: string): Name => ({ text, bytes: Buffer.from(text, 'latin1') });
/** The keys that matter at each of the three levels walked; every other key is skipped unread. */
const TOP_KEYS = [name('method'), name('params')];
const PARAMS_KEYS = [name('arguments')];
const ARGUMENT_KEYS = [...DOCUMENT_ARGUMENTS].map(name);
const TOOLS_CALL = Buffer.from('tools/call', 'latin1');

/**
 * Messages from this size up have their documents lifted out as bytes. Below it decoding the
 * whole message is as fast, and a small message takes the one ordinary path.
 */
export const LIFT_DOCUMENTS_FROM_BYTES = 16 * 1024;

/** Whitespace between two tokens, in bytes, past which a line is no client's: see `#peek`. */
const MAX_WHITESPACE_RUN = 64 * 1024;

/** Why a line is left to the ordinary path; never an error of its own. */
class NotLiftable extends Error {}

/**
 * Reads a `tools/call` request line whose document arguments (`params.arguments.xml` and
 * `.xsd`) are taken straight from the line's bytes into UTF-8 byte arrays, so a multi-megabyte
 * document is never decoded into a JavaScript string, parsed by `JSON.parse`, and encoded back
 * to bytes for the engine (measured at 8 MiB: ~150 ms of a ~350 ms call; docs/benchmarks.md).
 * The rest of the line is parsed by `JSON.parse` as usual, with each document replaced by a
 * `LiftedDocument` holding its bytes.
 *
 * Returns undefined whenever the ordinary path must decide instead: not a `tools/call`, no
 * document argument, a document that is not valid UTF-8 or holds a lone surrogate escape or a
 * raw control character, or anything malformed. Then the line is decoded and parsed whole, so
 * every error message and every edge stays exactly what it was; this path only ever answers
 * lines it reads the same way `JSON.parse` does. The caller has measured the line's nesting and
 * members on its bytes already (json-shape.ts), so whatever is parsed here is parsed once.
 */
export function parseLineLiftingDocuments(line: Uint8Array): Record<string, unknown> | undefined {
  try {
    return new Lifter(line).parse();
  } catch (error) {
    if (error instanceof NotLiftable) return undefined;
    throw error;
  }
}

class Lifter {
  readonly #bytes: Uint8Array;
  #at = 0;
  /** The document strings' byte ranges (quotes included), in line order, and their bytes. */
  readonly #lifted: { argument: string; start: number; end: number; document: LiftedDocument }[] = [];

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  parse(): Record<string, unknown> | undefined {
    this.#members(TOP_KEYS, (key) => {
      if (key === 'method') this.#expectToolsCall();
      else if (key === 'params' && this.#peek() === OPEN_BRACE) {
        this.#members(PARAMS_KEYS, (inner) => {
          if (inner === 'arguments' && this.#peek() === OPEN_BRACE) {
            this.#members(ARGUMENT_KEYS, (argument) => {
              if (argument !== undefined && this.#peek() === QUOTE) this.#liftString(argument);
              else this.#skipValue();
            });
          } else this.#skipValue();
        });
      } else this.#skipValue();
    });
    if (this.#peek() !== undefined || this.#lifted.length === 0) return undefined;
    return this.#parseRest();
  }

  /** Any method but a plainly written `tools/call` leaves the line at once: nothing to lift. */
  #expectToolsCall(): void {
    if (this.#peek() !== QUOTE) throw new NotLiftable();
    const start = this.#at + 1;
    if (this.#skipString() || !this.#bytesAre(start, this.#at - 1, TOOLS_CALL)) throw new NotLiftable();
  }

  /** JSON.parse of the line with each document emptied, then the documents put in their places. */
  #parseRest(): Record<string, unknown> | undefined {
    // Past the bound the rest is no envelope: left to the caller, which refuses it unparsed.
    const lifted = this.#lifted.reduce((sum, { start, end }) => sum + end - start, 0);
    if (this.#bytes.length - lifted > MAX_PARSED_JSON_BYTES) return undefined;
    const pieces: string[] = [];
    let from = 0;
    for (const { start, end } of this.#lifted) {
      pieces.push(decode(this.#bytes, from, start), '""');
      from = end;
    }
    pieces.push(decode(this.#bytes, from, this.#bytes.length));
    const rest = pieces.join('');
    let message: unknown;
    try {
      message = JSON.parse(rest);
    } catch {
      return undefined;
    }
    const args = (message as { params?: { arguments?: Record<string, unknown> } }).params?.arguments;
    if (
      (message as { method?: unknown }).method !== 'tools/call' ||
      typeof args !== 'object' ||
      args === null
    )
      return undefined;
    for (const { argument, document } of this.#lifted) args[argument] = document;
    return message as Record<string, unknown>;
  }

  /**
   * Walks an object's members, handing `onMember` the name from `names` each key spells (or
   * undefined) with the reader at its value. Keys are compared as bytes, never decoded. A
   * repeated name, or any key written with escapes (it might spell one), leaves the line to
   * `JSON.parse`, whose last value wins: the documents are put back by name.
   */
  #members(names: readonly Name[], onMember: (key: string | undefined) => void): void {
    this.#expect(OPEN_BRACE);
    if (this.#peek() === CLOSE_BRACE) {
      this.#at++;
      return;
    }
    let seen = 0;
    for (;;) {
      if (this.#peek() !== QUOTE) throw new NotLiftable();
      const start = this.#at + 1;
      if (this.#skipString()) throw new NotLiftable();
      const index = names.findIndex((name) => this.#bytesAre(start, this.#at - 1, name.bytes));
      if (index >= 0) {
        if (seen & (1 << index)) throw new NotLiftable();
        seen |= 1 << index;
      }
      this.#expect(COLON);
      this.#peek();
      onMember(names[index]?.text);
      const next = this.#peek();
      this.#at++;
      if (next === CLOSE_BRACE) return;
      if (next !== COMMA) throw new NotLiftable();
    }
  }

  #bytesAre(start: number, end: number, expected: Uint8Array): boolean {
    if (end - start !== expected.length) return false;
    for (let i = 0; i < expected.length; i++) if (this.#bytes[start + i] !== expected[i]) return false;
    return true;
  }

  /** Skips any JSON value without recursion (nesting depth is the client's to choose). */
  #skipValue(): void {
    const bytes = this.#bytes;
    let depth = 0;
    for (;;) {
      if (this.#at >= bytes.length) throw new NotLiftable();
      const byte = bytes[this.#at] as number;
      if (byte === QUOTE) {
        this.#skipString();
        if (depth === 0) return;
        continue;
      }
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        if (depth === 0) return; // the end of the enclosing object: a scalar just ended
        depth--;
        if (depth === 0) {
          this.#at++;
          return;
        }
      } else if (depth === 0 && byte === COMMA) return;
      this.#at++;
    }
  }

  /** Moves past the string at the reader; true when it holds an escape. */
  #skipString(): boolean {
    const bytes = this.#bytes;
    let at = this.#at + 1;
    let escaped = false;
    for (;;) {
      if (at >= bytes.length) throw new NotLiftable();
      const byte = bytes[at] as number;
      if (byte === QUOTE) break;
      if (byte === BACKSLASH) {
        escaped = true;
        at += 2;
      } else at++;
    }
    this.#at = at + 1;
    return escaped;
  }

  /**
   * Unescapes the string at the reader into UTF-8 bytes in one pass. Escapes only shrink, so
   * the rest of the line bounds the output; the result is copied to a buffer of its exact size,
   * which the engine pool can transfer to a worker instead of cloning.
   */
  #liftString(argument: string): void {
    const bytes = this.#bytes;
    const start = this.#at;
    const out = scratch(bytes.length - start);
    const words = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const outWords = new DataView(out.buffer);
    const lastWord = bytes.length - 4;
    let length = 0;
    let at = start + 1;
    for (;;) {
      // Four bytes at a time while none of them is a quote, a backslash or a control character
      // (about twice as fast as byte by byte on documents with an escape every ~20 bytes).
      while (at <= lastWord) {
        const word = words.getInt32(at, true);
        if (needsAttention(word)) break;
        outWords.setInt32(length, word, true);
        at += 4;
        length += 4;
      }
      if (at >= bytes.length) throw new NotLiftable();
      const byte = bytes[at] as number;
      if (byte === QUOTE) break;
      if (byte === BACKSLASH) {
        const marker = bytes[at + 1] ?? 0;
        const short = SHORT_ESCAPES[marker] ?? 0;
        if (short !== 0) {
          out[length++] = short;
          at += 2;
          continue;
        }
        if (marker !== 0x75) throw new NotLiftable();
        let code = this.#hex4(at + 2);
        at += 6;
        if (code >= 0xd800 && code <= 0xdfff) {
          // Only a high surrogate followed by a low one is a character; a lone one is refused
          // by the ordinary path with its own message.
          if (code > 0xdbff || bytes[at] !== BACKSLASH || bytes[at + 1] !== 0x75) throw new NotLiftable();
          const low = this.#hex4(at + 2);
          if (low < 0xdc00 || low > 0xdfff) throw new NotLiftable();
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
          at += 6;
        }
        length = writeUtf8(out, length, code);
        continue;
      }
      if (byte < SPACE) throw new NotLiftable();
      out[length++] = byte;
      at++;
    }
    const text = out.slice(0, length);
    if (!isUtf8(text)) throw new NotLiftable();
    this.#lifted.push({ argument, start, end: at + 1, document: new LiftedDocument(text) });
    this.#at = at + 1;
  }

  #hex4(at: number): number {
    let code = 0;
    for (let i = at; i < at + 4; i++) {
      const digit = hexDigit(this.#bytes[i]);
      if (digit < 0) throw new NotLiftable();
      code = code * 16 + digit;
    }
    return code;
  }

  /**
   * The next byte that is not JSON whitespace, leaving the reader on it. A run of whitespace
   * longer than any client writes leaves the line to `JSON.parse`, which skips 90 MiB of spaces
   * in a tenth of the time a byte loop here takes (issue 24, M3).
   */
  #peek(): number | undefined {
    const bytes = this.#bytes;
    const start = this.#at;
    const end = Math.min(bytes.length, start + MAX_WHITESPACE_RUN);
    for (let at = start; at < end; at++) {
      const byte = bytes[at] as number;
      if (byte !== SPACE && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) {
        this.#at = at;
        return byte;
      }
    }
    if (end < bytes.length) throw new NotLiftable();
    this.#at = end;
    return undefined;
  }

  #expect(byte: number): void {
    if (this.#peek() !== byte) throw new NotLiftable();
    this.#at++;
  }
}

/**
 * Whether any of the four bytes in `word` is `"`, `\\` or below 0x20, by the classic SWAR tests
 * (exact for "any byte is": a zero byte after XOR with the byte sought, a byte less than 0x20).
 */
function needsAttention(word: number): boolean {
  const quote = word ^ 0x22222222;
  const backslash = word ^ 0x5c5c5c5c;
  return (
    ((((quote - 0x01010101) & ~quote) |
      ((backslash - 0x01010101) & ~backslash) |
      ((word - 0x20202020) & ~word)) &
      0x80808080) !==
    0
  );
}

/** The scratch buffer documents are unescaped into, reused while it stays small (see scratch). */
let scratchBuffer = new Uint8Array(0);
const KEEP_SCRATCH_BYTES = 16 * 1024 * 1024;

/**
 * Room to unescape a document into before it is copied out at its exact size (the copy is what
 * the worker receives). Reused from message to message up to 16 MiB, so a large call does not
 * add a second multi-megabyte allocation for the allocator to fragment; not zero-filled, since
 * only what is written is read. The reader is synchronous, so one buffer serves every caller.
 */
function scratch(capacity: number): Uint8Array {
  if (capacity <= scratchBuffer.length) return scratchBuffer;
  const fresh = new Uint8Array(Buffer.allocUnsafeSlow(capacity).buffer, 0, capacity);
  if (capacity <= KEEP_SCRATCH_BYTES) scratchBuffer = fresh;
  return fresh;
}

const decode = (bytes: Uint8Array, start: number, end: number): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');

function hexDigit(byte: number | undefined): number {
  if (byte === undefined) return -1;
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

function writeUtf8(out: Uint8Array, at: number, code: number): number {
  if (code < 0x80) {
    out[at] = code;
    return at + 1;
  }
  if (code < 0x800) {
    out[at] = 0xc0 | (code >> 6);
    out[at + 1] = 0x80 | (code & 0x3f);
    return at + 2;
  }
  if (code < 0x10000) {
    out[at] = 0xe0 | (code >> 12);
    out[at + 1] = 0x80 | ((code >> 6) & 0x3f);
    out[at + 2] = 0x80 | (code & 0x3f);
    return at + 3;
  }
  out[at] = 0xf0 | (code >> 18);
  out[at + 1] = 0x80 | ((code >> 12) & 0x3f);
  out[at + 2] = 0x80 | ((code >> 6) & 0x3f);
  out[at + 3] = 0x80 | (code & 0x3f);
  return at + 4;
}
