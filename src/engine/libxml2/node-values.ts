import { XmlNodeType, xmlNodeGetContent } from 'libxml2-wasm/lib/libxml2.mjs';
import type { NodeFields } from './node-fields.js';

/**
 * Receives one value as UTF-8 bytes `[start, end)` of `bytes`, which may be a view of libxml2's
 * memory: read it during the call, keep nothing of it but copies.
 */
export interface ValueSink {
  add(bytes: Uint8Array, start: number, end: number): void;
}

const encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);

/** The end of the NUL-terminated string at `start`. */
function endOf(bytes: Uint8Array, start: number): number {
  let end = start;
  while (end < bytes.length && bytes[end] !== 0) end++;
  return end;
}

/**
 * Hands `sink` the text of `first` and its siblings (the children of an attribute, or of an
 * element that has no element child), as one value: in place when `fields` is a view of the
 * memory and the text is one node, as it nearly always is (entities are substituted, CDATA is
 * text); joined from copies otherwise. Comments and PIs among them are skipped. Allocates nothing
 * in libxml2's heap while `fields` is a view.
 */
function textOf(first: number, fields: NodeFields, sink: ValueSink): void {
  const bytes = fields.bytes;
  if (first === 0) {
    sink.add(EMPTY, 0, 0);
    return;
  }
  if (bytes && fields.next(first) === 0 && fields.type(first) === XmlNodeType.XML_TEXT_NODE) {
    const content = fields.content(first);
    sink.add(bytes, content, content === 0 ? 0 : endOf(bytes, content));
    return;
  }
  const parts: Uint8Array[] = [];
  for (let node = first; node !== 0; node = fields.next(node)) {
    const type = fields.type(node);
    if (type !== XmlNodeType.XML_TEXT_NODE && type !== XmlNodeType.XML_CDATA_SECTION_NODE) continue;
    if (bytes) {
      const content = fields.content(node);
      if (content !== 0) parts.push(bytes.slice(content, endOf(bytes, content)));
    } else {
      // No view: the wrapper's accessors, which may allocate, as everything else in such a walk.
      parts.push(encoder.encode(xmlNodeGetContent(node) ?? ''));
    }
  }
  const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  sink.add(joined, 0, joined.length);
}

/** An attribute's value. */
export function attributeValue(attr: number, fields: NodeFields, sink: ValueSink): void {
  textOf(fields.children(attr), fields, sink);
}

/**
 * Whether an element has children and none of them is an element: a leaf with something in it
 * (`<price>9.99</price>`, not `<tag/>`, which a caller counts as empty from the counts it keeps,
 * so that 600,000 distinct empty elements cost no value each). Only the children are looked at,
 * up to the first element: the walk visits them again, but walks the document once.
 */
export function holdsOnlyText(element: number, fields: NodeFields): boolean {
  const first = fields.children(element);
  if (first === 0) return false;
  for (let node = first; node !== 0; node = fields.next(node)) {
    if (fields.type(node) === XmlNodeType.XML_ELEMENT_NODE) return false;
  }
  return true;
}

/** The text of an element that `holdsOnlyText`, as one value. */
export function leafText(element: number, fields: NodeFields, sink: ValueSink): void {
  textOf(fields.children(element), fields, sink);
}
