/**
 * The engine's one UTF-8 decoder. `TextDecoder` drops a leading U+FEFF by default (`ignoreBOM`
 * false), but the bytes decoded here are never the start of a file: they are a value, a name, a
 * node's markup or a window of a line, where U+FEFF is a character like any other. Dropped, it
 * made `<k id="&#xFEFF;admin">` equal 'admin' in XPath 3.1 and not in XPath 1.0, and took the
 * character out of markup and inspected values (issue 33 F2).
 */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The UTF-8 bytes as a string, every character kept (an invalid sequence becomes U+FFFD). */
export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** Past this many bytes a string is left to `TextDecoder`, whose call costs less than a loop then. */
const SHORT_ASCII = 32;

/**
 * The NUL-terminated string at `start` when it is short and all ASCII (a number, a name, a
 * code), read without a subarray or a `TextDecoder` call: the values XPath 3.1 atomizes one by
 * one are mostly such (measured: half the decoding time of 23,000 prices). Null otherwise, for
 * `decodeUtf8`; the text is the same either way, ASCII bytes being their own characters.
 */
export function shortAsciiAt(bytes: Uint8Array, start: number): string | null {
  let text = '';
  for (let at = start; at < start + SHORT_ASCII; at++) {
    const byte = bytes[at] as number;
    if (byte === 0) return text;
    if (byte >= 0x80) return null;
    text += String.fromCharCode(byte);
  }
  return null;
}
