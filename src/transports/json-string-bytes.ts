import { isUtf8 } from 'node:buffer';

/**
 * The JSON string literal (quotes included), as UTF-8, of the text whose UTF-8 bytes are `bytes`:
 * byte for byte `Buffer.from(JSON.stringify(text))`, where `text` is the bytes decoded as
 * `Buffer#toString('utf8')` decodes them, but without `text` ever being built.
 *
 * Valid UTF-8 goes through Latin-1: each byte becomes one character of a one-byte string (a
 * copy), `JSON.stringify` escapes it on V8's one-byte path, and each character goes back to its
 * byte. That escapes exactly what JSON needs (`"`, `\`, the controls below 0x20, written as
 * `JSON.stringify` writes them) and passes every byte from 0x80 up through untouched, which
 * leaves multi-byte sequences whole: UTF-8 is valid JSON text. `JSON.stringify` never escapes
 * 0x7F–0xFF (only lone surrogates, which a one-byte string cannot hold), so the result is the
 * same as escaping the decoded text. Three native passes, at about half the cost of decoding,
 * escaping and encoding the text (docs/adr/0029). Bytes that are not valid UTF-8 take that slow
 * road, so they are replaced with U+FFFD exactly as decoding them would.
 */
export function jsonStringBytes(bytes: Uint8Array): Buffer {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!isUtf8(buffer)) return Buffer.from(JSON.stringify(buffer.toString('utf8')), 'utf8');
  const literal = JSON.stringify(buffer.toString('latin1'));
  const out = Buffer.allocUnsafeSlow(literal.length);
  out.write(literal, 'latin1');
  return out;
}
