/*
 * The contract between the tools and a transport that writes a large text answer straight from
 * its UTF-8 bytes (docs/adr/0029), so it sits above both, like lifted-document.ts.
 */

/**
 * The SDK validates a tool's result, and its text must be a string; turning xml_format's bytes
 * into one, then escaping and encoding that string again, was most of what the server added to
 * the engine's time. A transport that can write bytes offers this: the tool's result carries a
 * placeholder string, and the transport writes the bytes, JSON-escaped, where the placeholder
 * stands in the reply.
 */
export interface ByteTexts {
  /**
   * The text to put in request `id`'s result for the UTF-8 text `bytes`: a placeholder the
   * transport replaces with the bytes when it writes that reply, or, when it will write no
   * reply for `id` (the request was cancelled), the text itself.
   */
  hold(id: string | number, bytes: Uint8Array): string;
}

/** The text of UTF-8 bytes, for every path without a transport that writes bytes. */
export function decodedText(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}
