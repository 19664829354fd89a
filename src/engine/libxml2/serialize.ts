import {
  XmlNodeStruct,
  XmlNodeType,
  XmlNsStruct,
  XmlTreeCommonStruct,
  xmlNodeGetContent,
} from 'libxml2-wasm/lib/libxml2.mjs';
import { cutAt } from '../shown-cost.js';
import { heapBytes } from './memory.js';
import { type NodeRef, qualifiedName } from './tree.js';
import { decodeUtf8 } from './utf8.js';

/**
 * Fields of libxml2 2.15's `xmlNode` on wasm32 (libxml2-wasm 0.7.2) that the wrapper has no
 * accessor for: `content` at 40 and `psvi` at 52 (which holds a text node's line past 65,535
 * under XML_PARSE_BIG_LINES); `line` at 56 is an unsigned short, followed by `extra`.
 */
const CONTENT_OFFSET = 40;
const PSVI_OFFSET = 52;
const LINE_MASK = 0xffff;
const BIG_LINE = 65_535;

/** The i32 at `pointer + offset`, read through the wrapper's `type` accessor (which reads at +4). */
function fieldAt(pointer: number, offset: number): number {
  return XmlTreeCommonStruct.type(pointer + offset - 4);
}

export interface Markup {
  /** The node as markup, at most the characters asked for. */
  text: string;
  /** The node did not fit: `text` is its beginning. */
  cut: boolean;
}

/**
 * Serialises one node as markup, stopping as soon as `maxChars` characters are written: an
 * element with its subtree (namespace declarations it carries itself, not those of its
 * ancestors), an attribute as `name="value"`, a namespace node as `xmlns:p="uri"`, text escaped
 * as in a document, a comment or PI as itself, the document node as its children one per line.
 * Nothing is read past the budget, so the root element of an 8 MiB document costs what the
 * budget costs: text is read from the heap a bounded slice at a time, never copied out whole.
 * Nothing here resolves or loads anything (entity references are written as references).
 */
export function serializeNode(node: NodeRef, maxChars: number): Markup {
  const out = new Output(maxChars);
  const type = XmlTreeCommonStruct.type(node);
  if (type === XmlNodeType.XML_DOCUMENT_NODE) {
    let first = true;
    for (
      let child = XmlTreeCommonStruct.children(node);
      child !== 0;
      child = XmlTreeCommonStruct.next(child)
    ) {
      if (!isContent(XmlTreeCommonStruct.type(child))) continue;
      if (!first && !out.write('\n')) break;
      first = false;
      if (!writeSubtree(child, out)) break;
    }
  } else if (type === XmlNodeType.XML_ATTRIBUTE_NODE) {
    writeAttribute(node, out, false);
  } else if (type === XmlNodeType.XML_NAMESPACE_DECL) {
    writeNamespace(node, out, false);
  } else {
    writeSubtree(node, out);
  }
  return { text: out.text(), cut: out.full };
}

/** Node types written as document content; DTD and declaration nodes are not. */
function isContent(type: number): boolean {
  return (
    type === XmlNodeType.XML_ELEMENT_NODE ||
    type === XmlNodeType.XML_TEXT_NODE ||
    type === XmlNodeType.XML_CDATA_SECTION_NODE ||
    type === XmlNodeType.XML_ENTITY_REF_NODE ||
    type === XmlNodeType.XML_PI_NODE ||
    type === XmlNodeType.XML_COMMENT_NODE
  );
}

/** Characters written so far, cut at the budget; `write` answers false once it is spent. */
class Output {
  readonly #parts: string[] = [];
  #length = 0;
  full = false;
  readonly max: number;
  constructor(max: number) {
    this.max = max;
  }

  get room(): number {
    return this.max - this.#length;
  }

  write(text: string): boolean {
    if (this.full) return false;
    if (text.length <= this.room) {
      this.#parts.push(text);
      this.#length += text.length;
      return true;
    }
    this.#parts.push(cutAt(text, this.room));
    this.#length = this.max;
    this.full = true;
    return false;
  }

  text(): string {
    return this.#parts.join('');
  }
}

/** Walks the subtree without recursion, writing start tags, leaves and end tags in order. */
function writeSubtree(root: NodeRef, out: Output): boolean {
  let node = root;
  for (;;) {
    const type = XmlTreeCommonStruct.type(node);
    if (type === XmlNodeType.XML_ELEMENT_NODE) {
      if (!writeStartTag(node, out)) return false;
      const child = XmlTreeCommonStruct.children(node);
      if (child !== 0) {
        if (!out.write('>')) return false;
        node = child;
        continue;
      }
      if (!out.write('/>')) return false;
    } else if (!writeLeaf(node, type, out)) return false;
    for (;;) {
      if (node === root) return true;
      const next = XmlTreeCommonStruct.next(node);
      if (next !== 0) {
        node = next;
        break;
      }
      node = XmlTreeCommonStruct.parent(node);
      if (!out.write(`</${qualifiedName(node)}>`)) return false;
    }
  }
}

function writeStartTag(element: NodeRef, out: Output): boolean {
  if (!out.write(`<${qualifiedName(element)}`)) return false;
  for (let ns = XmlNodeStruct.nsDef(element); ns !== 0; ns = XmlNsStruct.next(ns)) {
    if (!writeNamespace(ns, out, true)) return false;
  }
  for (let attr = XmlNodeStruct.properties(element); attr !== 0; attr = XmlTreeCommonStruct.next(attr)) {
    if (!writeAttribute(attr, out, true)) return false;
  }
  return true;
}

function writeNamespace(ns: NodeRef, out: Output, leadingSpace: boolean): boolean {
  const prefix = XmlNsStruct.prefix(ns);
  return (
    out.write(`${leadingSpace ? ' ' : ''}xmlns${prefix ? `:${prefix}` : ''}="`) &&
    out.write(escapeAttribute(XmlNsStruct.href(ns) ?? '')) &&
    out.write('"')
  );
}

function writeAttribute(attr: NodeRef, out: Output, leadingSpace: boolean): boolean {
  if (!out.write(`${leadingSpace ? ' ' : ''}${qualifiedName(attr)}="`)) return false;
  for (let part = XmlTreeCommonStruct.children(attr); part !== 0; part = XmlTreeCommonStruct.next(part)) {
    const written =
      XmlTreeCommonStruct.type(part) === XmlNodeType.XML_ENTITY_REF_NODE
        ? out.write(`&${XmlTreeCommonStruct.name_(part)};`)
        : out.write(escapeAttribute(contentOf(part, out.room)));
    if (!written) return false;
  }
  return out.write('"');
}

function writeLeaf(node: NodeRef, type: number, out: Output): boolean {
  switch (type) {
    case XmlNodeType.XML_TEXT_NODE:
      return out.write(escapeText(contentOf(node, out.room)));
    case XmlNodeType.XML_CDATA_SECTION_NODE:
      return out.write('<![CDATA[') && out.write(contentOf(node, out.room)) && out.write(']]>');
    case XmlNodeType.XML_COMMENT_NODE:
      return out.write('<!--') && out.write(contentOf(node, out.room)) && out.write('-->');
    case XmlNodeType.XML_PI_NODE: {
      if (!out.write(`<?${XmlTreeCommonStruct.name_(node)}`)) return false;
      const data = contentOf(node, out.room);
      return (data === '' || out.write(` ${data}`)) && out.write('?>');
    }
    case XmlNodeType.XML_ENTITY_REF_NODE:
      return out.write(`&${XmlTreeCommonStruct.name_(node)};`);
    default:
      return true;
  }
}

/**
 * A text-like node's content, at most about `maxChars` characters of it (enough to fill the
 * budget; the caller cuts). Read from the heap directly, since xmlNodeGetContent would copy an
 * 8 MiB text node whole; without the captured memory, the whole content is read and cut here.
 */
function contentOf(node: NodeRef, maxChars: number): string {
  const pointer = fieldAt(node, CONTENT_OFFSET);
  if (pointer === 0) return '';
  const heap = heapBytes();
  if (!heap) return cutAt(xmlNodeGetContent(node) ?? '', maxChars + 1);
  // Every UTF-16 unit takes at most 3 bytes, so 3 bytes per character (and one over, so that a
  // longer text still reads as longer) hold the budget; a sequence split at the end decodes past it.
  const end = Math.min(heap.length, pointer + 3 * (maxChars + 1));
  const slice = heap.subarray(pointer, end);
  const nul = slice.indexOf(0);
  return cutAt(decodeUtf8(nul === -1 ? slice : slice.subarray(0, nul)), maxChars + 1);
}

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };
const ATTRIBUTE_ESCAPES: Record<string, string> = {
  ...TEXT_ESCAPES,
  '"': '&quot;',
  '\n': '&#10;',
  '\t': '&#9;',
};

/** As libxml2 writes text: `&`, `<`, `>` and carriage returns escaped. */
function escapeText(text: string): string {
  return text.replace(/[&<>\r]/g, (char) => TEXT_ESCAPES[char] as string);
}

/** As libxml2 writes attribute values, so a value reads back the same. */
function escapeAttribute(text: string): string {
  return text.replace(/[&<>"\r\n\t]/g, (char) => ATTRIBUTE_ESCAPES[char] as string);
}

/**
 * The node's line as libxml2's xmlGetLineNo finds it (for an element, the line where its start
 * tag ends, which is where the parser stood when it made the node): an element past line 65,535
 * borrows the line its first text child recorded; an attribute or a namespace node has the line
 * of its element; the document node has none (undefined).
 */
export function lineOf(node: NodeRef): number | undefined {
  const type = XmlTreeCommonStruct.type(node);
  if (type === XmlNodeType.XML_DOCUMENT_NODE) return undefined;
  if (type === XmlNodeType.XML_ATTRIBUTE_NODE) return lineOf(XmlTreeCommonStruct.parent(node));
  if (type === XmlNodeType.XML_NAMESPACE_DECL) {
    // An XPath namespace node is a copy whose `next` points at the element it belongs to.
    const element = XmlNsStruct.next(node);
    return element !== 0 && XmlTreeCommonStruct.type(element) === XmlNodeType.XML_ELEMENT_NODE
      ? lineOf(element)
      : undefined;
  }
  const line = recordedLine(node, 0);
  return line > 0 ? line : undefined;
}

const LINED = new Set<number>([
  XmlNodeType.XML_ELEMENT_NODE,
  XmlNodeType.XML_TEXT_NODE,
  XmlNodeType.XML_COMMENT_NODE,
  XmlNodeType.XML_PI_NODE,
]);

/** xmlGetLineNoInternal (libxml2 2.15 tree.c), which the wasm build does not export. */
function recordedLine(node: NodeRef, depth: number): number {
  if (depth >= 5 || node === 0) return -1;
  const type = XmlTreeCommonStruct.type(node);
  if (LINED.has(type)) {
    const line = XmlNodeStruct.line(node) & LINE_MASK;
    let result = -1;
    if (line === BIG_LINE) {
      const psvi = fieldAt(node, PSVI_OFFSET);
      const children = XmlTreeCommonStruct.children(node);
      const next = XmlTreeCommonStruct.next(node);
      const prev = XmlTreeCommonStruct.prev(node);
      if (type === XmlNodeType.XML_TEXT_NODE && psvi !== 0) result = psvi;
      else if (type === XmlNodeType.XML_ELEMENT_NODE && children !== 0)
        result = recordedLine(children, depth + 1);
      else if (next !== 0) result = recordedLine(next, depth + 1);
      else if (prev !== 0) result = recordedLine(prev, depth + 1);
    }
    return result === -1 || result === BIG_LINE ? line : result;
  }
  const prev = XmlTreeCommonStruct.prev(node);
  if (prev !== 0 && LINED.has(XmlTreeCommonStruct.type(prev))) return recordedLine(prev, depth + 1);
  const parent = XmlTreeCommonStruct.parent(node);
  if (parent !== 0 && XmlTreeCommonStruct.type(parent) === XmlNodeType.XML_ELEMENT_NODE) {
    return recordedLine(parent, depth + 1);
  }
  return -1;
}
