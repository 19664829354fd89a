import { XmlNamedNodeStruct, XmlNodeStruct, XmlTreeCommonStruct } from 'libxml2-wasm/lib/libxml2.mjs';
import { heapWords } from './memory.js';
import { CHILDREN, CONTENT, NAME, NEXT, NS, PARENT, PROPERTIES, TYPE } from './node-offsets.js';

/**
 * The fields of libxml2's `xmlNode` and `xmlAttr` that a walk over a whole tree reads, each
 * node's pointer in, the field's word out (a pointer, or the node type).
 */
export interface NodeFields {
  type(node: number): number;
  /** The interned local name (a pointer into the document's dictionary). */
  name(node: number): number;
  children(node: number): number;
  parent(node: number): number;
  next(node: number): number;
  /** The node's xmlNs, 0 for none. */
  ns(node: number): number;
  /** An element's first attribute. */
  properties(node: number): number;
  /** A text, CDATA or comment node's content (a pointer to its NUL-terminated UTF-8). */
  content(node: number): number;
  /**
   * The memory as bytes, for reading content in place, when the fields are read from it: one
   * view for the walk, since `WebAssembly.Memory`'s `buffer` getter, asked per text node, took a
   * fifth of a warm walk's time.
   */
  readonly bytes: Uint8Array | undefined;
}

/**
 * Reads the fields straight from a view of the WebAssembly memory: an indexed load, where each
 * of the wrapper's accessors goes through Emscripten's `getValue` and its switch on a type name
 * (a walk of an 8 MiB document reads some five million fields). The view must not outlive a
 * growth of the memory, which replaces its buffer: a walk that allocates nothing in libxml2's heap
 * may hold it from start to end.
 */
class HeapFields implements NodeFields {
  readonly #words: Int32Array;
  readonly bytes: Uint8Array;
  constructor(words: Int32Array) {
    this.#words = words;
    this.bytes = new Uint8Array(words.buffer);
  }
  type(node: number): number {
    return this.#words[(node + TYPE) >>> 2] as number;
  }
  name(node: number): number {
    return this.#words[(node + NAME) >>> 2] as number;
  }
  children(node: number): number {
    return this.#words[(node + CHILDREN) >>> 2] as number;
  }
  parent(node: number): number {
    return this.#words[(node + PARENT) >>> 2] as number;
  }
  next(node: number): number {
    return this.#words[(node + NEXT) >>> 2] as number;
  }
  ns(node: number): number {
    return this.#words[(node + NS) >>> 2] as number;
  }
  properties(node: number): number {
    return this.#words[(node + PROPERTIES) >>> 2] as number;
  }
  content(node: number): number {
    return this.#words[(node + CONTENT) >>> 2] as number;
  }
}

/** The wrapper's own accessors: slower, and right whatever its build, when the memory is not at hand. */
export const accessorFields: NodeFields = {
  type: XmlTreeCommonStruct.type,
  // The accessor for `name` decodes the string; the word at offset 0 of (node + NAME) is the pointer.
  name: (node) => XmlTreeCommonStruct.children(node + NAME - CHILDREN),
  children: XmlTreeCommonStruct.children,
  parent: XmlTreeCommonStruct.parent,
  next: XmlTreeCommonStruct.next,
  ns: XmlNamedNodeStruct.namespace,
  properties: XmlNodeStruct.properties,
  content: (node) => XmlTreeCommonStruct.children(node + CONTENT - CHILDREN),
  bytes: undefined,
};

/**
 * The fields through the memory when it was captured (memory.ts), else through the accessors.
 * Take it at the start of a walk that does not allocate in libxml2's heap and drop it at its end.
 */
export function nodeFields(): NodeFields {
  const words = heapWords();
  return words ? new HeapFields(words) : accessorFields;
}
