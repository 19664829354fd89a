import type { XmlDocument } from 'libxml2-wasm';

interface Entry {
  doc: XmlDocument;
  client: string;
  /** The text it was parsed from: a lookup only hits when the new text is byte-for-byte equal. */
  source: Uint8Array;
}

/**
 * Parsed documents kept for the client that sent them, so the `xml_inspect` → `xml_query` →
 * `xml_query` pattern parses a document once. Entries are keyed by client, length and a sampled
 * fingerprint of the text, and a hit is confirmed by comparing the whole text (memcmp: ~1 ms at
 * 8 MiB, where SHA-256 of every document, hit or miss, took ~6 ms). A client can only ever hit
 * its own entries, so no content crosses sessions (the bounds are shared: a session can notice
 * that another's documents evicted its own, never what they were). Bounded by the
 * total size of the cached texts; the least recently used entry is disposed first (the
 * WebAssembly heap gets the space back for the next parse). `releaseLarge` frees the large
 * ones, which the worker does before it parses another (operations.ts).
 */
export class DocumentCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxBytes: number;
  readonly #largeBytes: number;
  #bytes = 0;

  /** `largeBytes`: the size from which `releaseLarge` frees a document. */
  constructor(maxBytes: number, largeBytes = Number.POSITIVE_INFINITY) {
    this.#maxBytes = maxBytes;
    this.#largeBytes = largeBytes;
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
    const key = `${client}\u0000${kind}\u0000${source.byteLength}\u0000${fingerprint(source)}`;
    let entry = this.#entries.get(key);
    if (entry && !sameBytes(entry.source, source)) {
      // Same length and fingerprint, other text: the newer document takes the key.
      this.#drop(key, entry);
      entry = undefined;
    }
    if (entry) {
      this.#entries.delete(key);
    } else {
      entry = { doc: parse(), client, source };
      this.#makeRoom(source.byteLength);
      this.#bytes += source.byteLength;
    }
    this.#entries.set(key, entry);
    return use(entry.doc);
  }

  /**
   * Disposes every cached document of `largeBytes` or more, whoever sent it, so that a large
   * document parsed next takes their place in the heap, which never shrinks, instead of growing it.
   */
  releaseLarge(): void {
    for (const [key, entry] of this.#entries) {
      if (entry.source.byteLength >= this.#largeBytes) this.#drop(key, entry);
    }
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
    this.#bytes -= entry.source.byteLength;
    entry.doc.dispose();
  }
}

/** Bytes of the text sampled for the fingerprint: its head, its tail and evenly spaced ones. */
const SAMPLE = 1024;

/**
 * FNV-1a over a few thousand bytes of the text: cheap at any size, and the full comparison
 * that follows makes a collision cost time, never a wrong answer.
 */
export function fingerprint(source: Uint8Array): number {
  let hash = 0x811c9dc5;
  const mix = (byte: number) => {
    hash = Math.imul(hash ^ byte, 0x01000193);
  };
  if (source.byteLength <= 3 * SAMPLE) {
    for (const byte of source) mix(byte);
    return hash >>> 0;
  }
  for (let i = 0; i < SAMPLE; i++) mix(source[i] as number);
  for (let i = source.byteLength - SAMPLE; i < source.byteLength; i++) mix(source[i] as number);
  const stride = Math.floor(source.byteLength / SAMPLE);
  for (let i = 0; i < source.byteLength; i += stride) mix(source[i] as number);
  return hash >>> 0;
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}
