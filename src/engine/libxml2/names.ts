import {
  XmlNodeSetStruct,
  XmlNodeType,
  XmlNsStruct,
  XmlTreeCommonStruct,
} from 'libxml2-wasm/lib/libxml2.mjs';
import { heapWords } from './memory.js';
import { CHILDREN, NAME, NEXT, NS, NS_DEF, PARENT, PROPERTIES, TYPE } from './node-offsets.js';
import type { DocumentRef } from './tree.js';

/** Elements or attributes of one local name in one namespace (`uri` null: no namespace). */
export interface NameUse {
  kind: 'element' | 'attribute';
  local: string;
  uri: string | null;
  /** The prefix the document writes them with (null: unprefixed). */
  prefix: string | null;
  count: number;
}

/** A namespace declaration in the document (`prefix` null: a default namespace). */
export interface Declaration {
  prefix: string | null;
  uri: string;
}

export interface DocumentNames {
  /** Where the wanted local names occur, by kind and namespace. */
  uses: NameUse[];
  /** Every namespace an element or attribute is in. */
  namespaces: Set<string>;
  /** Each distinct declaration once. */
  declarations: Declaration[];
}

/**
 * Reads a pointer field. Straight from the heap when its memory was captured (a tenth of the
 * cost of the wrapper's accessor, which matters for a walk over every node), else through the
 * wrapper's accessor for an i32 at offset 0, which reads one anywhere. The heap does not grow
 * during the walk: nothing in it allocates in WebAssembly memory.
 */
function pointerReader(): (address: number) => number {
  const heap = heapWords();
  return heap ? (address) => heap[address >>> 2] as number : (address) => XmlNodeSetStruct.nodeCount(address);
}

/**
 * One pass over the document's elements and attributes for the names an explanation needs. Only
 * pointers are read per node: names are interned in the document's dictionary and namespaces are
 * shared structs, so each distinct one is decoded to a string once, and the walk follows the raw
 * `children`/`next`/`parent` links without a stack.
 */
export function documentNames(docPtr: DocumentRef, wanted: ReadonlySet<string>): DocumentNames {
  const pointerAt = pointerReader();
  const names = new Map<number, string | null>();
  const spaces = new Map<number, { uri: string; prefix: string | null }>();
  const counts = new Map<string, NameUse>();
  const declarations = new Map<string, Declaration>();
  /** The node's local name when it is wanted, else null. */
  const localOf = (node: number): string | null => {
    const namePtr = pointerAt(node + NAME);
    let local = names.get(namePtr);
    if (local === undefined) {
      const text = XmlTreeCommonStruct.name_(node);
      local = wanted.has(text) ? text : null;
      names.set(namePtr, local);
    }
    return local;
  };
  const spaceOf = (nsPtr: number) => {
    let space = spaces.get(nsPtr);
    if (space === undefined) {
      space = { uri: XmlNsStruct.href(nsPtr) ?? '', prefix: XmlNsStruct.prefix(nsPtr) || null };
      spaces.set(nsPtr, space);
    }
    return space;
  };
  const count = (kind: NameUse['kind'], node: number) => {
    const nsPtr = pointerAt(node + NS);
    // Namespaces are counted even for names nobody asked about: a bound URI may be near one.
    const space = nsPtr === 0 ? null : spaceOf(nsPtr);
    const local = localOf(node);
    if (local === null) return;
    const key = `${kind} ${nsPtr} ${local}`;
    const use = counts.get(key);
    if (use) use.count++;
    else counts.set(key, { kind, local, uri: space?.uri ?? null, prefix: space?.prefix ?? null, count: 1 });
  };

  let node = pointerAt(docPtr + CHILDREN);
  while (node !== 0) {
    if (pointerAt(node + TYPE) === XmlNodeType.XML_ELEMENT_NODE) {
      count('element', node);
      for (let attr = pointerAt(node + PROPERTIES); attr !== 0; attr = pointerAt(attr + NEXT)) {
        count('attribute', attr);
      }
      for (let ns = pointerAt(node + NS_DEF); ns !== 0; ns = XmlNsStruct.next(ns)) {
        const declaration = { prefix: XmlNsStruct.prefix(ns) || null, uri: XmlNsStruct.href(ns) ?? '' };
        declarations.set(`${declaration.prefix ?? ''} ${declaration.uri}`, declaration);
      }
      const child = pointerAt(node + CHILDREN);
      if (child !== 0) {
        node = child;
        continue;
      }
    }
    while (node !== 0 && node !== docPtr) {
      const next = pointerAt(node + NEXT);
      if (next !== 0) {
        node = next;
        break;
      }
      node = pointerAt(node + PARENT);
    }
    if (node === docPtr) break;
  }
  return {
    uses: [...counts.values()],
    namespaces: new Set([...spaces.values()].map((space) => space.uri)),
    declarations: [...declarations.values()],
  };
}
