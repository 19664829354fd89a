/*
 * The one contract the stdio reader and the tools share, so it sits above both: which arguments
 * carry whole documents, and the form a document takes when the reader lifted it out as bytes.
 */

/** The arguments that carry whole documents (every tool's `xml`, xml_validate's `xsd`). */
export const DOCUMENT_ARGUMENTS: ReadonlySet<string> = new Set(['xml', 'xsd']);
export type DocumentArgument = 'xml' | 'xsd';

/**
 * A document argument that reached the server as UTF-8 bytes taken straight from the request
 * line (src/transports/lift-documents.ts) instead of as a string. The tools hand the bytes to
 * the engine as they are; in every other way the argument is what its string would have been.
 */
export class LiftedDocument {
  readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  /**
   * What a serialiser writes in the document's place. The HTTP adapter re-serialises the parsed
   * body to build a web Request it then ignores (the parsed body is dispatched); a byte array
   * would come out as an object with millions of keys.
   */
  toJSON(): string {
    return `[document, ${this.bytes.byteLength} bytes]`;
  }
}
