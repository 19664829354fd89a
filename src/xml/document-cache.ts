import { createHash } from 'node:crypto';
import type { XmlDocument } from 'libxml2-wasm';

interface Entry {
  doc: XmlDocument;
  client: string;
  bytes: number;
}

/**
 * Parsed documents kept for the client that sent them, so the `xml_inspect` → `xml_query` →
 * `xml_query` pattern parses a document once. Entries are keyed by client and a hash of the
 * text: a client can only ever hit its own entries, so nothing crosses sessions, not even as a
 * timing difference. Bounded by the total size of the cached texts; the least recently used
 * entry is disposed first (the WebAssembly heap gets the space back for the next parse).
 */
export class DocumentCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * The client's parsed copy of `source`, parsed by `parse` on a miss. The document stays owned
   * by the cache: the caller must not dispose it. A document too large to cache is parsed and
   * handed to `use` without being kept.
   */
  use<T>(
    client: string,
    kind: string,
    source: Uint8Array,
    parse: () => XmlDocument,
    use: (doc: XmlDocument) => T,
  ): T {
    if (source.byteLength > this.#maxBytes) {
      const doc = parse();
      try {
        return use(doc);
      } finally {
        doc.dispose();
      }
    }
    const key = `${client}\u0000${kind}\u0000${createHash('sha256').update(source).digest('base64')}`;
    let entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
    } else {
      entry = { doc: parse(), client, bytes: source.byteLength };
      this.#makeRoom(entry.bytes);
      this.#bytes += entry.bytes;
    }
    this.#entries.set(key, entry);
    return use(entry.doc);
  }

  /** Drops every entry of a client whose session ended. */
  forget(client: string): void {
    for (const [key, entry] of this.#entries) {
      if (entry.client === client) this.#drop(key, entry);
    }
  }

  clear(): void {
    for (const [key, entry] of this.#entries) this.#drop(key, entry);
  }

  /** Disposes least recently used entries (first in the map) until `bytes` more fit. */
  #makeRoom(bytes: number): void {
    for (const [key, entry] of this.#entries) {
      if (this.#bytes + bytes <= this.#maxBytes) return;
      this.#drop(key, entry);
    }
  }

  #drop(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    entry.doc.dispose();
  }
}
