import { isUtf8 } from 'node:buffer';

/**
 * Bytes escaped per slice: each slice's strings stay small (V8's young generation takes them and
 * frees them cheaply), and the text is never held whole a second time beside its bytes.
 */
const SLICE_BYTES = 64 * 1024;

/**
 * The JSON string literal (quotes included), as UTF-8 in consecutive buffers, of the text whose
 * UTF-8 bytes are `bytes`: byte for byte `Buffer.from(JSON.stringify(text))`, where `text` is the
 * bytes decoded as `Buffer#toString('utf8')` decodes them, but without `text` ever being built.
 *
 * Valid UTF-8 goes through Latin-1: each byte becomes one character of a one-byte string (a
 * copy), `JSON.stringify` escapes it on V8's one-byte path, and each character goes back to its
 * byte. That escapes exactly what JSON needs (`"`, `\`, the controls below 0x20, written as
 * `JSON.stringify` writes them) and passes every byte from 0x80 up through untouched, which
 * leaves multi-byte sequences whole: UTF-8 is valid JSON text. `JSON.stringify` never escapes
 * 0x7F–0xFF (only lone surrogates, which a one-byte string cannot hold), so the result is the
 * same as escaping the decoded text; and since every byte is escaped on its own, a slice may end
 * anywhere, inside a multi-byte sequence too. About half the cost of decoding, escaping and
 * encoding the text (docs/adr/0029). Bytes that are not valid UTF-8 take that slow road, so they
 * are replaced with U+FFFD exactly as decoding them would.
 */
export function jsonStringBytes(bytes: Uint8Array): Buffer[] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!isUtf8(buffer)) return [Buffer.from(JSON.stringify(buffer.toString('utf8')), 'utf8')];
  const slices: Buffer[] = [];
  for (let start = 0; ; start += SLICE_BYTES) {
    const end = Math.min(buffer.length, start + SLICE_BYTES);
    const literal = JSON.stringify(buffer.toString('latin1', start, end));
    const slice = Buffer.allocUnsafeSlow(literal.length);
    slice.write(literal, 'latin1');
    // One literal across the slices: the first keeps its opening quote, the last its closing one.
    const last = end === buffer.length;
    slices.push(slice.subarray(start === 0 ? 0 : 1, last ? slice.length : slice.length - 1));
    if (last) return slices;
  }
}
