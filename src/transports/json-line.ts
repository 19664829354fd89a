import { randomUUID } from 'node:crypto';
import { jsonStringBytes } from './json-string-bytes.js';

/** A string this long is escaped slice by slice instead of inside one JSON.stringify. */
const LARGE_STRING_CHARS = 1024 * 1024;
const SLICE_CHARS = 1024 * 1024;
const NEWLINE = 0x0a;

/** A string of the message that stands for UTF-8 bytes, which are written in its place (docs/adr/0029). */
export interface BytesInPlace {
  placeholder: string;
  bytes: Uint8Array;
}

/**
 * One message as the buffers of one JSON line, in bytes as they go out. `JSON.stringify` of a
 * message holding a 120 MiB string (an indented 8 MiB `xml_format`) builds the escaped text in
 * pieces, writing it flattens them into a second copy and encodes that into a third; escaping each
 * large string a slice at a time into buffers of its own leaves only those buffers beside the
 * string (docs/adr/0010-output-back-pressure.md). The bytes are what `JSON.stringify` would give,
 * with `inPlace.bytes` (decoded) wherever the message holds `inPlace.placeholder`.
 */
export function jsonLine(message: unknown, inPlace?: BytesInPlace): Buffer[] {
  if (!inPlace && !hasLargeString(message)) return [exactLine(JSON.stringify(message))];
  const large: Array<string | Uint8Array> = [];
  // Stands in for each large string; random, so no value of the message can spell it.
  const marker = `oxml-large-string-${randomUUID()}`;
  const envelope = JSON.stringify(message, (_key, value: unknown) => {
    if (typeof value !== 'string') return value;
    if (inPlace && value === inPlace.placeholder) large.push(inPlace.bytes);
    else if (value.length >= LARGE_STRING_CHARS) large.push(value);
    else return value;
    return marker;
  });
  const parts = envelope.split(`"${marker}"`);
  const buffers: Buffer[] = [];
  parts.forEach((part, index) => {
    if (part !== '') buffers.push(Buffer.from(part, 'utf8'));
    const text = large[index];
    if (typeof text === 'string') buffers.push(...escapedSlices(text));
    else if (text !== undefined) buffers.push(...jsonStringBytes(text));
  });
  buffers.push(Buffer.from([NEWLINE]));
  return buffers;
}

function exactLine(json: string): Buffer {
  const line = Buffer.allocUnsafe(Buffer.byteLength(json) + 1);
  line[line.write(json)] = NEWLINE;
  return line;
}

/** The JSON string literal of `text`, quotes included, one slice of characters per buffer. */
function escapedSlices(text: string): Buffer[] {
  const slices: Buffer[] = [];
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + SLICE_CHARS);
    // A surrogate pair stays in one slice, so each is escaped as JSON.stringify escapes the whole.
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    const literal = JSON.stringify(text.slice(start, end));
    const first = start === 0;
    const last = end === text.length;
    slices.push(Buffer.from(literal.slice(first ? 0 : 1, last ? literal.length : -1), 'utf8'));
    start = end;
  }
  return slices;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** Whether any string in the message is large; a walk is cheaper than a replacer on every value. */
function hasLargeString(message: unknown): boolean {
  const stack: unknown[] = [message];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (value.length >= LARGE_STRING_CHARS) return true;
    } else if (typeof value === 'object' && value !== null) {
      for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push(child);
    }
  }
  return false;
}
