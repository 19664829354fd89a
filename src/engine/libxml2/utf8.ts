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
