import type { XmlOutputBufferHandler } from 'libxml2-wasm';

/** Blocks start small (most documents are) and double up to this size. */
const FIRST_BLOCK_BYTES = 16 * 1024;
const LAST_BLOCK_BYTES = 1024 * 1024;

/**
 * Collects what libxml2 serialises (a few KiB per call, as views into its WebAssembly memory) as
 * bytes, for a caller that wants UTF-8 rather than a string: no JavaScript string is built, and
 * the result is one buffer of its own that a worker can transfer instead of cloning.
 */
export class ByteSink implements XmlOutputBufferHandler {
  readonly #full: Uint8Array[] = [];
  #block = new Uint8Array(FIRST_BLOCK_BYTES);
  #used = 0;
  #total = 0;

  write = (chunk: Uint8Array): number => {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.#used === this.#block.length) {
        this.#full.push(this.#block);
        this.#block = new Uint8Array(Math.min(LAST_BLOCK_BYTES, this.#block.length * 2));
        this.#used = 0;
      }
      const length = Math.min(chunk.length - offset, this.#block.length - this.#used);
      this.#block.set(chunk.subarray(offset, offset + length), this.#used);
      this.#used += length;
      offset += length;
    }
    this.#total += chunk.length;
    return chunk.length;
  };

  close = (): boolean => true;

  /** Everything written, in one exact-size buffer of its own. */
  take(): Uint8Array {
    const bytes = new Uint8Array(this.#total);
    let offset = 0;
    for (const block of this.#full) {
      bytes.set(block, offset);
      offset += block.length;
    }
    bytes.set(this.#block.subarray(0, this.#used), offset);
    return bytes;
  }
}
