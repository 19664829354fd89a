import type { XmlDocument } from 'libxml2-wasm';
import {
  XmlNamedNodeStruct,
  XmlNodeStruct,
  XmlNodeType,
  XmlNsStruct,
  XmlTreeCommonStruct,
  xmlDocGetRootElement,
  xmlFreeDtd,
  xmlGetIntSubset,
  xmlNodeGetContent,
  xmlUnlinkNode,
} from 'libxml2-wasm/lib/libxml2.mjs';
import { heapBytes } from './memory.js';
import { accessorFields, type NodeFields, nodeFields } from './node-fields.js';

export { accessorFields, type NodeFields, nodeFields } from './node-fields.js';

/**
 * Raw libxml2 pointers, opaque outside this folder: the engine passes them back to the functions
 * here and never reads memory through them itself.
 */
export type DocumentRef = number;
export type NodeRef = number;

/** libxml2's node types (XML_ELEMENT_NODE, …), as `walk` reports them. */
export { XmlNodeType as NodeType };

/** The libxml2 pointer behind a document, for the raw calls the public API does not offer. */
export function documentPointer(doc: XmlDocument): DocumentRef {
  return (doc as unknown as { _ptr: number })._ptr;
}

/** The document's root element (0 when it has none). */
export function rootElement(doc: XmlDocument): NodeRef {
  return xmlDocGetRootElement(documentPointer(doc));
}

/** Unlinks and frees the document's internal DTD subset, if it has one. */
export function dropInternalSubset(doc: XmlDocument): void {
  const subset = xmlGetIntSubset(documentPointer(doc));
  if (subset === 0) return;
  xmlUnlinkNode(subset);
  xmlFreeDtd(subset);
}

/** XPath 1.0 §5 string-value; a namespace node's value is its URI. */
export function stringValue(node: NodeRef): string {
  if (XmlTreeCommonStruct.type(node) === XmlNodeType.XML_NAMESPACE_DECL) return XmlNsStruct.href(node) ?? '';
  return xmlNodeGetContent(node) ?? '';
}

/**
 * Visits every node below the document node in document order, without recursion (the
 * WebAssembly side already limits depth; the JavaScript side should not add a stack of its own)
 * and without allocating: it follows the raw `children`, `next` and `parent` pointers (the
 * public API stops at processing instructions). Only elements are entered. `depth` is 1 for the
 * children of the document node (the root element among them). `visit` must not allocate in
 * libxml2's heap (parse, evaluate, copy content out with xmlNodeGetContent): `fields` may be a
 * view of it.
 */
export function walk(
  docPtr: DocumentRef,
  visit: (node: NodeRef, type: number, depth: number) => void,
  fields: NodeFields = nodeFields(),
): void {
  let node = fields.children(docPtr);
  let depth = 1;
  while (node !== 0) {
    const type = fields.type(node);
    visit(node, type, depth);
    if (type === XmlNodeType.XML_ELEMENT_NODE) {
      const first = fields.children(node);
      if (first !== 0) {
        node = first;
        depth++;
        continue;
      }
    }
    // No child to enter: the next sibling, or the next sibling of the nearest ancestor that has one.
    while (depth > 0) {
      const next = fields.next(node);
      if (next !== 0) {
        node = next;
        break;
      }
      node = fields.parent(node);
      depth--;
    }
    if (depth === 0) break;
  }
}

/** Number of attributes on an element node. */
export function attributeCount(element: NodeRef): number {
  let count = 0;
  for (let attr = XmlNodeStruct.properties(element); attr !== 0; attr = XmlTreeCommonStruct.next(attr))
    count++;
  return count;
}

/** The element's name as written in the document, prefix included. */
export function qualifiedName(element: NodeRef): string {
  const local = XmlTreeCommonStruct.name_(element);
  const ns = XmlNamedNodeStruct.namespace(element);
  const prefix = ns === 0 ? null : XmlNsStruct.prefix(ns);
  return prefix ? `${prefix}:${local}` : local;
}

/** The element's namespace URI and the prefix it was written with (null for a default namespace). */
export function namespaceOf(element: NodeRef): { uri: string; prefix: string | null } | null {
  const ns = XmlNamedNodeStruct.namespace(element);
  if (ns === 0) return null;
  return { uri: XmlNsStruct.href(ns) ?? '', prefix: XmlNsStruct.prefix(ns) || null };
}

/**
 * The element's attributes whose local name `wanted` accepts, as [local name, value] in document
 * order; only their values are read, since each one is copied out of the WebAssembly heap.
 */
export function attributesOf(
  element: NodeRef,
  wanted: (name: string) => boolean,
): Array<[name: string, value: string]> {
  const attributes: Array<[string, string]> = [];
  for (let attr = XmlNodeStruct.properties(element); attr !== 0; attr = XmlTreeCommonStruct.next(attr)) {
    const name = XmlTreeCommonStruct.name_(attr);
    if (wanted(name)) attributes.push([name, xmlNodeGetContent(attr)]);
  }
  return attributes;
}

/** The node's local name (its name without prefix). */
export function localName(node: NodeRef): string {
  return XmlTreeCommonStruct.name_(node);
}

/**
 * The pointer to an element's or attribute's local name. A parsed document interns its names in
 * its dictionary, so equal names share one pointer: a cache keyed by it reads each name once.
 */
export function namePointer(node: NodeRef): number {
  return accessorFields.name(node);
}

/** The pointer to an element's or attribute's namespace (an xmlNs), 0 for none. */
export function namespacePointer(node: NodeRef): number {
  return XmlNamedNodeStruct.namespace(node);
}

/** An xmlNs's URI and the prefix it was declared with (null for a default namespace). */
export function namespaceAt(ns: number): { uri: string; prefix: string | null } {
  return { uri: XmlNsStruct.href(ns) ?? '', prefix: XmlNsStruct.prefix(ns) || null };
}

/** The node's libxml2 type (NodeType), for any node an XPath result holds. */
export function nodeType(node: NodeRef): number {
  return XmlTreeCommonStruct.type(node);
}

/**
 * The node's parent in the XPath sense: an attribute's or a namespace node's element, the
 * document node for the root element; 0 for the document node.
 */
export function parentOf(node: NodeRef): NodeRef {
  if (XmlTreeCommonStruct.type(node) === XmlNodeType.XML_NAMESPACE_DECL) {
    // An XPath namespace node is a copy whose `next` points at the element it belongs to.
    const element = XmlNsStruct.next(node);
    return element !== 0 && XmlTreeCommonStruct.type(element) === XmlNodeType.XML_ELEMENT_NODE ? element : 0;
  }
  return XmlTreeCommonStruct.parent(node);
}

/** The first child of an element or the document node (0: none); siblings follow by `nextSibling`. */
export function firstChild(node: NodeRef): NodeRef {
  return XmlTreeCommonStruct.children(node);
}

/** The element's first attribute (0: none); the others follow by `nextSibling`. */
export function firstAttribute(element: NodeRef): NodeRef {
  return XmlNodeStruct.properties(element);
}

export function nextSibling(node: NodeRef): NodeRef {
  return XmlTreeCommonStruct.next(node);
}

/**
 * Whether a text or CDATA node holds a character other than XML white space (space, tab, CR,
 * LF). The bytes are scanned in place up to the first such character: nothing is copied out.
 */
export function holdsText(node: NodeRef, fields: NodeFields = nodeFields()): boolean {
  const content = fields.content(node);
  if (content === 0) return false;
  const bytes = fields.bytes ?? heapBytes();
  if (!bytes) return /[^ \t\r\n]/.test(xmlNodeGetContent(node) ?? '');
  for (let at = content; at < bytes.length; at++) {
    const byte = bytes[at] as number;
    if (byte === 0) return false;
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return true;
  }
  return false;
}

/** The namespace URI of an element or attribute, null when it is in no namespace. */
export function namespaceUri(node: NodeRef): string | null {
  const ns = XmlNamedNodeStruct.namespace(node);
  return ns === 0 ? null : (XmlNsStruct.href(ns) ?? '');
}

/** A namespace node's prefix, '' for a default namespace. */
export function namespacePrefix(nsNode: NodeRef): string {
  return XmlNsStruct.prefix(nsNode) ?? '';
}
