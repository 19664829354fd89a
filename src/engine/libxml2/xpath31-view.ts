/**
 * PROTOTYPE (branch wip-xpath31-measure): XPath 3.1 over a document parsed by libxml2, evaluated
 * by fontoxpath through its external DOM facade (`IDomFacade`). Nothing is copied: each libxml2
 * node fontoxpath reaches gets one small JavaScript wrapper, made on first sight and cached by
 * pointer, so results map back to libxml2 nodes (`NodeRef`) and the engine's existing output
 * forms (markup, paths) apply to them.
 *
 * The wrappers read the node structs straight from the WebAssembly memory (node-offsets.ts). A
 * view must not be used after its document is disposed, and must be `refresh`ed (done by
 * `evaluate`) after anything allocated in libxml2's heap, which may replace the memory's buffer.
 */
import type { Bucket, Node as FontoNode, IDomFacade, Options } from 'fontoxpath';
import * as fontoxpathModule from 'fontoxpath';
import { XmlNsStruct, xmlNodeGetContent } from 'libxml2-wasm/lib/libxml2.mjs';
import { formatNumber } from '../query/format-number.js';
import { heapWords } from './memory.js';
import { CHILDREN, CONTENT, LAST, NAME, NEXT, NS, PARENT, PREV, PROPERTIES, TYPE } from './node-offsets.js';
import { type DocumentRef, type NodeRef, stringValue } from './tree.js';
import { decodeUtf8 } from './utf8.js';
import { hoistInvariantPredicates } from './xpath31-invariant-predicates.js';
import { type PathPlan, type PerItem, planPaths, SELECTED_NAMESPACE } from './xpath31-paths.js';
import { type NodeStructs, perItemValues } from './xpath31-per-item.js';
import { type Selection, selectPaths } from './xpath31-selected.js';

const ELEMENT = 1;
const ATTRIBUTE = 2;
const TEXT = 3;
const CDATA = 4;
const PI = 7;
const COMMENT = 8;
const DOCUMENT = 9;
/** Bytes of a value read character by character before it is handed to TextDecoder. */
const SHORT_TEXT = 64;

// fontoxpath ships a UMD file as `main`, whose names Node's ESM loader cannot see (tsx, the tests'
// workers), and an ES module as `module` (the bundle); both have the API as their default export.
const { evaluateXPath, registerCustomXPathFunction, registerXQueryModule } = ((
  fontoxpathModule as unknown as { default?: typeof fontoxpathModule }
).default ?? fontoxpathModule) as typeof fontoxpathModule;

// fn:format-number, which fontoxpath lacks (ADR 0056): `xs:numeric?` casts an untyped value to a
// double, as the function's signature does, so `format-number(@price, '0.00')` reads an attribute.
const FN = 'http://www.w3.org/2005/xpath-functions';
for (const parameters of [
  ['xs:numeric?', 'xs:string'],
  ['xs:numeric?', 'xs:string', 'xs:string?'],
])
  registerCustomXPathFunction(
    { namespaceURI: FN, localName: 'format-number' },
    parameters,
    'xs:string',
    (_, value: number | null, picture: string, name: string | null = null) =>
      formatNumber(value, picture, name),
  );

/** A libxml2 node as fontoxpath sees it: the DOM-like fields it reads, plus the pointer. */
export class LxNode {
  /** Memoized child list (with no bucket), for document-order comparisons that ask it again and again. */
  kids: LxNode[] | undefined = undefined;
  /** Position in document order (`Xpath31View.compareDocumentOrder`), -1 until first asked. */
  order = -1;
  readonly view: Xpath31View;
  readonly ptr: NodeRef;
  readonly nodeType: number;
  readonly localName: string | null;
  readonly namespaceURI: string | null;
  readonly prefix: string | null;
  readonly nodeName: string;
  /** `name-<localName>` for elements and attributes: the bucket they match, one string per name. */
  readonly nameBucket: string | null;
  constructor(
    view: Xpath31View,
    ptr: NodeRef,
    nodeType: number,
    localName: string | null,
    namespaceURI: string | null,
    prefix: string | null,
    nodeName: string,
    nameBucket: string | null,
  ) {
    this.view = view;
    this.ptr = ptr;
    this.nodeType = nodeType;
    this.localName = localName;
    this.namespaceURI = namespaceURI;
    this.prefix = prefix;
    this.nodeName = nodeName;
    this.nameBucket = nameBucket;
  }
  /** Text, comment and processing-instruction content; an attribute's value. */
  get data(): string {
    return this.view.dataOf(this);
  }
  get value(): string {
    return this.view.dataOf(this);
  }
  get name(): string {
    return this.nodeName;
  }
  get target(): string {
    return this.nodeName;
  }
}

/** fontoxpath's `IDomFacade` over the wrappers (typed loosely: its Attr/Element types want non-null names). */
export class Xpath31View implements NodeStructs {
  #words: Int32Array;
  #bytes: Uint8Array;
  readonly #nodes = new Map<number, LxNode>();
  readonly #names = new Map<number, { local: string; bucket: string }>();
  readonly #spaces = new Map<number, { uri: string; prefix: string | null }>();
  #order: OrderIndex | null = null;
  readonly document: LxNode;

  readonly docPtr: DocumentRef;

  constructor(docPtr: DocumentRef) {
    this.docPtr = docPtr;
    const words = heapWords();
    if (!words) throw new Error('xpath31-view needs the WebAssembly memory (captureWasmMemory)');
    this.#words = words;
    this.#bytes = new Uint8Array(words.buffer);
    this.document = this.wrap(docPtr) as LxNode;
  }

  /** Renews the memory views after libxml2 allocated (the buffer is replaced when memory grows). */
  refresh(): void {
    if (this.#words.buffer.byteLength !== 0 && this.#words.buffer === heapWords()?.buffer) return;
    const words = heapWords() as Int32Array;
    this.#words = words;
    this.#bytes = new Uint8Array(words.buffer);
  }

  /** Number of wrappers made so far (one per libxml2 node fontoxpath reached). */
  get size(): number {
    return this.#nodes.size;
  }

  #at(address: number): number {
    return this.#words[address >>> 2] as number;
  }

  #string(address: number): string {
    if (address === 0) return '';
    const bytes = this.#bytes;
    // Most values are short ASCII: built in JavaScript they skip TextDecoder's fixed cost per call.
    let text = '';
    for (let at = address; at < address + SHORT_TEXT; at++) {
      const byte = bytes[at] as number;
      if (byte === 0) return text;
      if (byte > 0x7f) break;
      text += String.fromCharCode(byte);
    }
    return decodeUtf8(bytes.subarray(address, bytes.indexOf(0, address)));
  }

  #name(node: number): { local: string; bucket: string } {
    const namePtr = this.#at(node + NAME);
    let name = this.#names.get(namePtr);
    if (name === undefined) {
      const local = this.#string(namePtr);
      name = { local, bucket: `name-${local}` };
      this.#names.set(namePtr, name);
    }
    return name;
  }

  #space(nsPtr: number): { uri: string; prefix: string | null } {
    let space = this.#spaces.get(nsPtr);
    if (space === undefined) {
      space = { uri: XmlNsStruct.href(nsPtr) ?? '', prefix: XmlNsStruct.prefix(nsPtr) || null };
      this.#spaces.set(nsPtr, space);
    }
    return space;
  }

  /** The wrapper of a node fontoxpath may see, or null for the kinds it must not (DTD, XInclude …). */
  wrap(ptr: number): LxNode | null {
    if (ptr === 0) return null;
    const known = this.#nodes.get(ptr);
    if (known !== undefined) return known;
    let type = this.#at(ptr + TYPE);
    let node: LxNode;
    switch (type) {
      case ELEMENT:
      case ATTRIBUTE: {
        const name = this.#name(ptr);
        const nsPtr = this.#at(ptr + NS);
        const space = nsPtr === 0 ? null : this.#space(nsPtr);
        const prefix = space?.prefix ?? null;
        node = new LxNode(
          this,
          ptr,
          type,
          name.local,
          space ? space.uri : null,
          prefix,
          prefix ? `${prefix}:${name.local}` : name.local,
          name.bucket,
        );
        break;
      }
      case CDATA:
      case TEXT:
        type = TEXT;
        node = new LxNode(this, ptr, type, null, null, null, '#text', null);
        break;
      case COMMENT:
        node = new LxNode(this, ptr, type, null, null, null, '#comment', null);
        break;
      case PI:
        node = new LxNode(this, ptr, type, null, null, null, this.#name(ptr).local, null);
        break;
      case DOCUMENT:
        node = new LxNode(this, ptr, type, null, null, null, '#document', null);
        break;
      default:
        return null;
    }
    this.#nodes.set(ptr, node);
    return node;
  }

  /**
   * Compares two nodes of this view in document order (negative: `a` first), in O(1) after one
   * walk of the whole tree on first use. fontoxpath calls it, through the patch its bundles get
   * (scripts/fontoxpath-patches.ts), instead of comparing ancestor chains and scanning the
   * common parent's children, which is quadratic in a parent's child count. `undefined` (fontoxpath
   * then compares as it would have) for a node not of this view or not reached by the walk. The
   * view's document must not change after the first call (neither may its wrappers' `kids`).
   */
  compareDocumentOrder(a: FontoNode, b: FontoNode): number | undefined {
    if (a === b) return 0;
    if (!(a instanceof LxNode) || !(b instanceof LxNode) || a.view !== this || b.view !== this)
      return undefined;
    const first = a.order >= 0 ? a.order : this.#orderOf(a);
    const second = b.order >= 0 ? b.order : this.#orderOf(b);
    if (first < 0 || second < 0) return undefined;
    return first - second;
  }

  /** Nodes numbered by the document-order walk (0 before the first comparison). */
  get orderedNodes(): number {
    return this.#order?.count ?? 0;
  }

  /** Bytes the document-order index holds (0 before the first comparison). */
  get orderBytes(): number {
    return this.#order?.bytes ?? 0;
  }

  #orderOf(node: LxNode): number {
    this.#order ??= this.#numberNodes();
    const order = this.#order.find(node.ptr);
    node.order = order;
    return order;
  }

  /**
   * One pre-order walk, without recursion, of what fontoxpath can reach: the document node,
   * then each node, an element's attributes right after it and before its children. Only
   * elements are entered (not entity references, whose children are the entity's, nor the DTD).
   */
  #numberNodes(): OrderIndex {
    const index = new OrderIndexBuilder();
    const doc = this.docPtr as number;
    index.add(doc);
    let node = this.#at(doc + CHILDREN);
    while (node !== 0) {
      index.add(node);
      if (this.#at(node + TYPE) === ELEMENT) {
        for (let attr = this.#at(node + PROPERTIES); attr !== 0; attr = this.#at(attr + NEXT))
          index.add(attr);
        const child = this.#at(node + CHILDREN);
        if (child !== 0) {
          node = child;
          continue;
        }
      }
      for (;;) {
        const next = this.#at(node + NEXT);
        if (next !== 0) {
          node = next;
          break;
        }
        node = this.#at(node + PARENT);
        if (node === doc || node === 0) {
          node = 0;
          break;
        }
      }
    }
    return index.build();
  }

  dataOf(node: LxNode): string {
    if (node.nodeType === ATTRIBUTE) return this.#attributeValue(node.ptr);
    if (node.nodeType === ELEMENT || node.nodeType === DOCUMENT) return '';
    return this.#string(this.#at(node.ptr + CONTENT));
  }

  #attributeValue(ptr: number): string {
    const first = this.#at(ptr + CHILDREN);
    if (first === 0) return '';
    if (this.#at(first + NEXT) === 0 && this.#at(first + TYPE) === TEXT)
      return this.#string(this.#at(first + CONTENT));
    const value = xmlNodeGetContent(ptr) ?? '';
    this.refresh();
    return value;
  }

  // ---- NodeStructs (xpath31-per-item.ts): the tree read without wrappers ----

  words(): Int32Array {
    return this.#words;
  }

  localNameAt(ptr: number): string {
    return this.#name(ptr).local;
  }

  namespaceAt(ptr: number): string | null {
    const nsPtr = this.#at(ptr + NS);
    return nsPtr === 0 ? null : this.#space(nsPtr).uri;
  }

  /**
   * The string-value of the node at `ptr`, read from the structs without making a wrapper; null
   * for a kind `wrap` refuses (fontoxpath must not see it).
   */
  textAt(ptr: number): string | null {
    switch (this.#at(ptr + TYPE)) {
      case ATTRIBUTE:
        return this.#attributeValue(ptr);
      case ELEMENT:
      case DOCUMENT:
        return this.#descendantText(ptr);
      case TEXT:
      case CDATA:
      case COMMENT:
      case PI:
        return this.#string(this.#at(ptr + CONTENT));
      default:
        return null;
    }
  }

  /**
   * `matches` read from the node struct, before any wrapper is made: the siblings a step passes
   * over (whitespace, other names) then cost no wrapper, no map entry and no garbage. Only kinds
   * `wrap` makes can match (CDATA is text to fontoxpath).
   */
  #matchesAt(ptr: number, bucket: string): boolean {
    const type = this.#at(ptr + TYPE);
    if (type === ELEMENT || type === ATTRIBUTE)
      return (
        bucket === 'type-1-or-type-2' || bucket === this.#name(ptr).bucket || bucket === TYPE_BUCKETS[type]
      );
    if (type === CDATA) return bucket === TYPE_BUCKETS[TEXT];
    return (
      (type === TEXT || type === COMMENT || type === PI || type === DOCUMENT) && bucket === TYPE_BUCKETS[type]
    );
  }

  /**
   * An element's or the document's string-value, read in one walk of the structs: the text and
   * CDATA nodes below it, in document order (elements entered, anything `wrap` refuses skipped,
   * as fontoxpath's own walk over `getChildNodes` does). fontoxpath's atomization calls it
   * through its patch (scripts/fontoxpath-patches.ts) instead of wrapping every descendant;
   * `undefined` (fontoxpath walks as before) for a node not of this view.
   */
  stringValueOf(node: FontoNode): string | undefined {
    if (!(node instanceof LxNode) || node.view !== this) return undefined;
    if (node.nodeType !== ELEMENT && node.nodeType !== DOCUMENT) return undefined;
    return this.#descendantText(node.ptr);
  }

  #descendantText(top: number): string {
    let text = '';
    let ptr = this.#at(top + CHILDREN);
    while (ptr !== 0) {
      const type = this.#at(ptr + TYPE);
      if (type === TEXT || type === CDATA) text += this.#string(this.#at(ptr + CONTENT));
      else if (type === ELEMENT) {
        const child = this.#at(ptr + CHILDREN);
        if (child !== 0) {
          ptr = child;
          continue;
        }
      }
      while (this.#at(ptr + NEXT) === 0) {
        ptr = this.#at(ptr + PARENT);
        if (ptr === top || ptr === 0) return text;
      }
      ptr = this.#at(ptr + NEXT);
    }
    return text;
  }

  // ---- IDomFacade ----

  getAllAttributes(node: FontoNode, bucket: Bucket | null = null): LxNode[] {
    const element = node as LxNode;
    if (element.nodeType !== ELEMENT) return [];
    const attributes: LxNode[] = [];
    for (let attr = this.#at(element.ptr + PROPERTIES); attr !== 0; attr = this.#at(attr + NEXT))
      if (bucket === null || this.#matchesAt(attr, bucket)) attributes.push(this.wrap(attr) as LxNode);
    return attributes;
  }

  getAttribute(node: FontoNode, attributeName: string): string | null {
    const element = node as LxNode;
    if (element.nodeType !== ELEMENT) return null;
    for (let attr = this.#at(element.ptr + PROPERTIES); attr !== 0; attr = this.#at(attr + NEXT)) {
      const wrapped = this.wrap(attr) as LxNode;
      if (wrapped.nodeName === attributeName) return this.dataOf(wrapped);
    }
    return null;
  }

  getChildNodes(node: FontoNode, bucket: Bucket | null = null): LxNode[] {
    const parent = node as LxNode;
    if (parent.nodeType !== ELEMENT && parent.nodeType !== DOCUMENT) return [];
    if (bucket !== null && parent.kids === undefined) {
      // Only the children the bucket takes are wrapped: `record/price` wraps no text node.
      const matching: LxNode[] = [];
      for (let child = this.#at(parent.ptr + CHILDREN); child !== 0; child = this.#at(child + NEXT))
        if (this.#matchesAt(child, bucket)) matching.push(this.wrap(child) as LxNode);
      return matching;
    }
    let kids = parent.kids;
    if (kids === undefined) {
      kids = [];
      for (let child = this.#at(parent.ptr + CHILDREN); child !== 0; child = this.#at(child + NEXT)) {
        const wrapped = this.wrap(child);
        if (wrapped !== null) kids.push(wrapped);
      }
      parent.kids = kids;
    }
    return bucket === null ? kids : kids.filter((kid) => matches(kid, bucket));
  }

  getData(node: FontoNode): string {
    return this.dataOf(node as LxNode);
  }

  getFirstChild(node: FontoNode, bucket: Bucket | null = null): LxNode | null {
    const parent = node as LxNode;
    if (parent.nodeType !== ELEMENT && parent.nodeType !== DOCUMENT) return null;
    return this.#forward(this.#at(parent.ptr + CHILDREN), bucket);
  }

  getLastChild(node: FontoNode, bucket: Bucket | null = null): LxNode | null {
    const parent = node as LxNode;
    if (parent.nodeType !== ELEMENT && parent.nodeType !== DOCUMENT) return null;
    return this.#backward(this.#at(parent.ptr + LAST), bucket);
  }

  getNextSibling(node: FontoNode, bucket: Bucket | null = null): LxNode | null {
    const sibling = node as LxNode;
    if (sibling.nodeType === ATTRIBUTE || sibling.nodeType === DOCUMENT) return null;
    return this.#forward(this.#at(sibling.ptr + NEXT), bucket);
  }

  getPreviousSibling(node: FontoNode, bucket: Bucket | null = null): LxNode | null {
    const sibling = node as LxNode;
    if (sibling.nodeType === ATTRIBUTE || sibling.nodeType === DOCUMENT) return null;
    return this.#backward(this.#at(sibling.ptr + PREV), bucket);
  }

  getParentNode(node: FontoNode): LxNode | null {
    const child = node as LxNode;
    if (child.nodeType === DOCUMENT) return null;
    return this.wrap(this.#at(child.ptr + PARENT));
  }

  #forward(start: number, bucket: Bucket | null): LxNode | null {
    for (let ptr = start; ptr !== 0; ptr = this.#at(ptr + NEXT)) {
      if (bucket === null) {
        const wrapped = this.wrap(ptr);
        if (wrapped !== null) return wrapped;
      } else if (this.#matchesAt(ptr, bucket)) return this.wrap(ptr);
    }
    return null;
  }

  #backward(start: number, bucket: Bucket | null): LxNode | null {
    for (let ptr = start; ptr !== 0; ptr = this.#at(ptr + PREV)) {
      if (bucket === null) {
        const wrapped = this.wrap(ptr);
        if (wrapped !== null) return wrapped;
      } else if (this.#matchesAt(ptr, bucket)) return this.wrap(ptr);
    }
    return null;
  }
}

/** Pointers in the order added; grows by doubling. */
class OrderIndexBuilder {
  #pointers = new Int32Array(1024);
  #count = 0;
  add(ptr: number): void {
    if (this.#count === this.#pointers.length) {
      const larger = new Int32Array(this.#pointers.length * 2);
      larger.set(this.#pointers);
      this.#pointers = larger;
    }
    this.#pointers[this.#count++] = ptr;
  }
  build(): OrderIndex {
    return new OrderIndex(this.#pointers.slice(0, this.#count));
  }
}

/**
 * Pointer to document-order position: the pointers in order, and an open-addressing hash table
 * (linear probing, at most half full) of position + 1 (0: empty slot). 4 bytes per node for the
 * pointers and 8 to 16 for the table, where a Map would take ~30.
 */
class OrderIndex {
  readonly #pointers: Int32Array;
  readonly #slots: Int32Array;
  readonly #shift: number;
  readonly #mask: number;
  constructor(pointers: Int32Array) {
    this.#pointers = pointers;
    let bits = 4;
    while (1 << bits < pointers.length * 2) bits++;
    this.#slots = new Int32Array(1 << bits);
    this.#shift = 32 - bits;
    this.#mask = (1 << bits) - 1;
    for (let position = 0; position < pointers.length; position++) {
      let slot = this.#slot(pointers[position] as number);
      while (this.#slots[slot] !== 0) slot = (slot + 1) & this.#mask;
      this.#slots[slot] = position + 1;
    }
  }
  get count(): number {
    return this.#pointers.length;
  }
  /** Bytes held (the two typed arrays). */
  get bytes(): number {
    return this.#pointers.byteLength + this.#slots.byteLength;
  }
  #slot(ptr: number): number {
    return Math.imul(ptr, 0x9e3779b1) >>> this.#shift;
  }
  /** The node's position in document order, or -1. */
  find(ptr: number): number {
    for (let slot = this.#slot(ptr); ; slot = (slot + 1) & this.#mask) {
      const entry = this.#slots[slot] as number;
      if (entry === 0) return -1;
      if (this.#pointers[entry - 1] === ptr) return entry - 1;
    }
  }
}

/** fontoxpath's own bucket test (its default facade): type, element-or-attribute, or local name. */
function matches(node: LxNode, bucket: string): boolean {
  const type = node.nodeType;
  if (
    (type === ELEMENT || type === ATTRIBUTE) &&
    (bucket === node.nameBucket || bucket === 'type-1-or-type-2')
  )
    return true;
  return bucket === TYPE_BUCKETS[type];
}
const TYPE_BUCKETS = Array.from({ length: 12 }, (_, type) => `type-${type}`);

export type Xpath31Item =
  | { kind: 'node'; node: NodeRef; nodeType: number }
  /** `text` is the value as XPath 3.1's string() gives it (doubles in the 1.0E21 form). */
  | { kind: 'atomic'; type: string; text: string }
  /** Maps and arrays as fontoxpath converts them to JavaScript (lossy: members lose their types). */
  | { kind: 'map' | 'array' | 'function'; value: unknown };

export interface Xpath31Options {
  /** A view of the same document made before: its wrappers are reused (the first call makes them). */
  view?: Xpath31View;
  language?: 'xpath' | 'xquery';
  /** Items read out at most (the first ones); `count` and `nodes` still cover them all. */
  limit?: number;
  /**
   * Whether absolute paths XPath 1.0 can say are selected by libxml2 (xpath31-paths.ts, ADR
   * 0055) and predicates that read no focus evaluated once per filter
   * (xpath31-invariant-predicates.ts); default true. False evaluates the expression as written,
   * every step in fontoxpath, as before.
   */
  selectPaths?: boolean;
  /** libxml2's step budget for each path it selects. */
  opLimit?: number;
}

/** An expression's result: how many items, whether all are nodes, and the first `limit` of them. */
export interface Xpath31Answer {
  count: number;
  /** Every item is a node (true for no item at all). */
  nodes: boolean;
  items: Xpath31Item[];
}

/** The atomic types whose name is reported, most specific first (`instance of` is true for supertypes). */
const ATOMIC_TYPES = [
  'xs:integer',
  'xs:decimal',
  'xs:double',
  'xs:float',
  'xs:string',
  'xs:boolean',
  'xs:untypedAtomic',
  'xs:anyURI',
  'xs:QName',
  'xs:dateTime',
  'xs:date',
  'xs:time',
  'xs:dayTimeDuration',
  'xs:yearMonthDuration',
  'xs:duration',
  'xs:gYearMonth',
  'xs:gYear',
  'xs:gMonthDay',
  'xs:gDay',
  'xs:gMonth',
  'xs:hexBinary',
  'xs:base64Binary',
];
const TYPE_CHAIN = `${ATOMIC_TYPES.map((type) => `if ($item instance of ${type}) then '${type}' else `).join('')}'xs:anyAtomicType'`;
const ATOMIC_KEY = 'oxml-xpath31-atomic';
/** The prefix under which each evaluation imports the answer module below. */
const ANSWER_PREFIX = 'oxml-mcp-answer';
const ANSWER_MODULE = 'urn:oxml-mcp:xpath31-answer';
/**
 * What an answer reads of a result, as an XQuery function compiled once per worker: its count,
 * whether every item is a node, and the first `$limit` items, each atomic value as a map of its
 * type and string() (fontoxpath hands atomics to JavaScript as numbers, Dates or internal
 * objects, and the type is lost: 1e21 and 10000000000000000000000 are the same number). Written
 * into each expression, its 1,400 characters cost ~5 ms of compilation on every call, four
 * fifths of a small question's time (ADR 0055, addendum 4).
 */
registerXQueryModule(`module namespace ${ANSWER_PREFIX} = "${ANSWER_MODULE}";
declare function ${ANSWER_PREFIX}:items($all as item()*, $limit as xs:integer) as item()* {
  count($all),
  every $item in $all satisfies $item instance of node(),
  for $item in subsequence($all, 1, $limit) return
    if ($item instance of xs:anyAtomicType)
    then map { '${ATOMIC_KEY}': (${TYPE_CHAIN}), 'text': string($item) }
    else $item
};`);

/**
 * Evaluates an XPath 3.1 expression with the document node as context item. Prefixes are bound
 * only by \`namespaces\` (never from the document); an unprefixed name test is in no namespace,
 * as in XPath 1.0. Nodes come back as libxml2 pointers, in fontoxpath's order (document order
 * for path expressions). Errors are fontoxpath's (\`Error\` whose message starts with the W3C
 * code, e.g. XPST0003, with a \`position\` for syntax errors).
 */
export function evaluateXPath31(
  doc: DocumentRef,
  expression: string,
  namespaces: Record<string, string>,
  options: Omit<Xpath31Options, 'limit'> = {},
): Xpath31Item[] {
  return evaluateXPath31Counted(doc, expression, namespaces, options).items;
}

/** `evaluateXPath31`, reading out only the first `options.limit` items, with the count of all. */
export function evaluateXPath31Counted(
  doc: DocumentRef,
  expression: string,
  namespaces: Record<string, string>,
  options: Xpath31Options = {},
): Xpath31Answer {
  const view = options.view ?? new Xpath31View(doc);
  const rewrite = options.selectPaths !== false;
  const hoisted = rewrite ? hoistInvariantPredicates(expression) : null;
  const plan = rewrite ? planPaths(hoisted ?? expression, namespaces) : null;
  const selections = plan && selectPaths(view, plan, namespaces, options.opLimit);
  try {
    if (plan && selections)
      return withSelections(view, plan, selections, () =>
        evaluateCounted(view, plan.expression, namespaces, options),
      );
    if (hoisted !== null) return evaluateCounted(view, hoisted, namespaces, options);
  } catch {
    // Evaluated as written below: its error is the one to tell, in the user's own terms.
  }
  return evaluateCounted(view, expression, namespaces, options);
}

/** Runs `evaluate` with a plan's selections bound for the functions below; unbound after. */
function withSelections<T>(view: Xpath31View, plan: PathPlan, selections: Selection[], evaluate: () => T): T {
  selected = selections;
  perItem = { view, computations: plan.perItem ?? [], values: [] };
  try {
    return evaluate();
  } finally {
    selected = [];
    perItem = null;
    selectedTexts = [];
    selectedIndexes = [];
  }
}

/**
 * The nodes libxml2 selected for the paths of the expression being evaluated, for
 * `Q{SELECTED_NAMESPACE}selected(n)`; empty between calls, so no call's nodes outlive it.
 */
let selected: readonly Selection[] = [];
const nodesOf = (number: number): readonly LxNode[] => {
  const selection = selected[number - 1];
  return selection !== undefined && 'nodes' in selection ? selection.nodes : [];
};
registerCustomXPathFunction(
  { namespaceURI: SELECTED_NAMESPACE, localName: 'selected' },
  ['xs:integer'],
  'node()*',
  (_, number: number) => nodesOf(number),
);
/**
 * The per-item computations of the expression being evaluated, for `per-item-<type>(n)`
 * (xpath31-per-item-plan.ts), with the view they read, and each one's values once computed:
 * inside a predicate fontoxpath asks again for every context node.
 */
let perItem: {
  view: Xpath31View;
  computations: readonly PerItem[];
  values: Array<number[] | undefined>;
} | null = null;
for (const type of ['double', 'decimal', 'integer'])
  registerCustomXPathFunction(
    { namespaceURI: SELECTED_NAMESPACE, localName: `per-item-${type}` },
    ['xs:integer'],
    `xs:${type}*`,
    (_, number: number) => {
      const computation = perItem?.computations[number - 1];
      if (perItem === null || computation === undefined) return [];
      const selection = selected[computation.path - 1];
      // Also read as nodes elsewhere in the expression, the path was selected as nodes.
      const pointers =
        selection === undefined || 'distinctTexts' in selection
          ? []
          : 'pointers' in selection
            ? selection.pointers
            : selection.nodes.map((node) => node.ptr);
      perItem.values[number - 1] ??= perItemValues(perItem.view, pointers, computation.expression);
      // A copy: fontoxpath owns what it is handed.
      return perItem.values[number - 1]?.slice() ?? [];
    },
  );
/** Each selection's nodes by the texts of one key (xpath31-paths.ts), made when `where` first asks. */
let selectedIndexes: Array<Map<string, Map<string, LxNode[]>> | undefined> = [];
registerCustomXPathFunction(
  { namespaceURI: SELECTED_NAMESPACE, localName: 'where' },
  ['xs:integer', 'xs:string', 'xs:anyAtomicType*'],
  'node()*',
  (_, number: number, key: string, keys: unknown[]) => {
    // A number, date or boolean compares as its type: fontoxpath's own test decides that.
    if (!keys.every((text) => typeof text === 'string')) throw new Error('where: a key that is not text');
    const byKey = selectedIndexes[number - 1] ?? new Map<string, Map<string, LxNode[]>>();
    selectedIndexes[number - 1] = byKey;
    let index = byKey.get(key);
    if (index === undefined) {
      index = new Map<string, LxNode[]>();
      for (const node of nodesOf(number)) {
        for (const text of keyTexts(node, key)) {
          const nodes = index.get(text);
          if (nodes === undefined) index.set(text, [node]);
          else nodes.push(node);
        }
      }
      byKey.set(key, index);
    }
    if (keys.length === 1) return index.get(keys[0] as string) ?? [];
    // Several keys: the nodes any of them selects, still in document order.
    const found = new Set<LxNode>();
    for (const text of keys as string[]) for (const node of index.get(text) ?? []) found.add(node);
    return nodesOf(number).filter((node) => found.has(node));
  },
);
/**
 * The distinct texts a node is compared by for `where`'s key: its attribute `@name`, itself `.`,
 * or each of its child elements `name` (in no namespace, as an unprefixed name test selects).
 */
function keyTexts(node: LxNode, key: string): Set<string> {
  if (key === '.') return new Set([textOf(node)]);
  if (key.startsWith('@')) {
    const value = node.view.getAttribute(node, key.slice(1));
    return new Set(value === null ? [] : [value]);
  }
  const children = node.view.getChildNodes(node, `name-${key}`);
  return new Set(
    children.filter((child) => child.nodeType === ELEMENT && child.namespaceURI === null).map(textOf),
  );
}
registerCustomXPathFunction(
  { namespaceURI: SELECTED_NAMESPACE, localName: 'distinct-texts' },
  ['xs:integer'],
  // A string returned as xs:untypedAtomic: scripts/fontoxpath-patches.ts, UNTYPED_RETURN_PATCHES.
  'xs:untypedAtomic*',
  (_, number: number) => {
    const selection = selected[number - 1];
    if (selection !== undefined && 'distinctTexts' in selection) return selection.distinctTexts;
    // The path is also read as nodes elsewhere in the expression, so it was selected as nodes.
    return [...new Set(nodesOf(number).map(textOf))];
  },
);
registerCustomXPathFunction(
  { namespaceURI: SELECTED_NAMESPACE, localName: 'distinct-count' },
  ['xs:integer'],
  'xs:integer',
  (_, number: number) => {
    const selection = selected[number - 1];
    if (selection !== undefined && 'distinctTexts' in selection) return selection.distinctTexts.length;
    return new Set(nodesOf(number).map(textOf)).size;
  },
);
/** A selected node's string-value (an attribute's read in place; an element's by libxml2). */
function textOf(node: LxNode): string {
  if (node.nodeType === ATTRIBUTE) return node.value;
  const text = stringValue(node.ptr);
  // stringValue allocates in libxml2's heap, which may move the memory the view reads.
  node.view.refresh();
  return text;
}
/** Each selection's texts, made when `equals-any` first asks (xpath31-paths.ts). */
let selectedTexts: Array<Set<string> | undefined> = [];
registerCustomXPathFunction(
  { namespaceURI: SELECTED_NAMESPACE, localName: 'equals-any' },
  ['xs:string*', 'xs:integer'],
  'xs:boolean',
  (_, values: string[], number: number) => {
    let texts = selectedTexts[number - 1];
    if (texts === undefined) {
      texts = new Set(nodesOf(number).map(textOf));
      selectedTexts[number - 1] = texts;
    }
    return values.some((value) => texts.has(value));
  },
);

function evaluateCounted(
  view: Xpath31View,
  expression: string,
  namespaces: Record<string, string>,
  options: Xpath31Options,
): Xpath31Answer {
  view.refresh();
  const bound = new Map(Object.entries(namespaces));
  const fontoOptions: Options = {
    namespaceResolver: (prefix: string) => (prefix === '' ? null : (bound.get(prefix) ?? null)),
    language:
      options.language === 'xquery' ? evaluateXPath.XQUERY_3_1_LANGUAGE : evaluateXPath.XPATH_3_1_LANGUAGE,
    // fontoxpath would keep every compiled expression for the worker's life (~310 KiB for one of
    // 1,900 characters), so distinct expressions filled the heap that later calls need (ADR 0048).
    // A repeated expression pays its compile again: 2-7 ms, measured.
    disableCache: true,
    moduleImports: { [ANSWER_PREFIX]: ANSWER_MODULE },
  };
  const run = (text: string) =>
    evaluateXPath(
      text,
      view.document,
      view as unknown as IDomFacade,
      null,
      evaluateXPath.ALL_RESULTS_TYPE,
      fontoOptions,
    ) as unknown[];
  // An expression whose brackets close below its own start could close the wrapper's bracket and
  // change what the wrapped text means: it is run as written, and fails as written. So is an
  // XQuery prolog (`declare function …;`), which must come first.
  if (!closesInside(expression) || PROLOG.test(expression)) {
    const items = (run(expression) as unknown[]).map(toItem);
    return { count: items.length, nodes: items.every((item) => item.kind === 'node'), items };
  }
  const limit = Math.max(0, Math.floor(options.limit ?? Number.MAX_SAFE_INTEGER));
  let results: unknown[];
  try {
    // The newline ends a trailing comment-free line; the user's text is parsed first on its own
    // below when the wrapped one fails to parse, so positions are the user's. Only the items an
    // answer can show are typed and handed to JavaScript: `1 to 200000` costs its count, not
    // 200,000 maps.
    results = run(`${ANSWER_PREFIX}:items((${expression}\n), ${limit})`);
  } catch (error) {
    if (error instanceof Error && /XPST0003/.test(error.message)) run(expression);
    throw error;
  }
  const [count, nodes, ...items] = results;
  return { count: count as number, nodes: nodes as boolean, items: items.map(toItem) };
}

const PROLOG = /^(?:\s|\(:[\s\S]*?:\))*(?:xquery\s+version|declare\s|import\s)/;

/**
 * Whether no bracket of the expression closes one it did not open, string literals and comments
 * aside (`1), (2` would otherwise read as two expressions inside the wrapper).
 */
function closesInside(expression: string): boolean {
  const code = expression.replace(/"(?:[^"]|"")*"|'(?:[^']|'')*'|\(:[\s\S]*?:\)/g, ' ');
  let depth = 0;
  for (const char of code) {
    if (char === '(' || char === '[' || char === '{') depth++;
    else if ((char === ')' || char === ']' || char === '}') && --depth < 0) return false;
  }
  return true;
}

function toItem(value: unknown): Xpath31Item {
  if (value instanceof LxNode) return { kind: 'node', node: value.ptr, nodeType: value.nodeType };
  if (Array.isArray(value)) return { kind: 'array', value };
  if (typeof value === 'function') return { kind: 'function', value };
  if (typeof value === 'object' && value !== null && ATOMIC_KEY in value) {
    const info = value as Record<string, string>;
    const type = info[ATOMIC_KEY] as string;
    const text = info.text as string;
    return {
      kind: 'atomic',
      type,
      text: type === 'xs:double' || type === 'xs:float' ? canonicalDouble(text) : text,
    };
  }
  return { kind: 'map', value };
}

/**
 * XPath 3.1 casts an xs:double to xs:string as a decimal for 1e-6 <= |x| < 1e6 and as
 * 1.0E6, 1.23456789E7, 1.0E-7 outside it; fontoxpath writes 1000000, 12345678.9 and 1E-7.
 */
function canonicalDouble(text: string): string {
  if (text === 'NaN' || text === 'INF' || text === '-INF' || text === '-0' || text === '0') return text;
  const value = Number(text);
  if (!Number.isFinite(value)) return value > 0 ? 'INF' : value < 0 ? '-INF' : 'NaN';
  const magnitude = Math.abs(value);
  if (magnitude === 0 || (magnitude >= 1e-6 && magnitude < 1e6)) return String(value);
  const [mantissa, exponent] = value.toExponential().split('e') as [string, string];
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}

/** A value handed back by `evaluateXPath31Plain`: a node as its pointer, anything else as fontoxpath gives it. */
export type PlainItem = { node: NodeRef } | string | number | boolean;

/**
 * fontoxpath's cache of compiled expressions, reachable through its patch
 * (scripts/fontoxpath-patches.ts): undefined where fontoxpath was loaded unpatched.
 */
export function compiledExpressions(): Map<unknown, unknown> | undefined {
  return (globalThis as Record<symbol, Map<unknown, unknown> | undefined>)[
    Symbol.for('oxml-mcp.fontoxpath.compiled')
  ];
}

/**
 * Evaluates an XPath 3.1 expression with the document node as context item and `nodes` bound as
 * variables, each an XPath array of those nodes (`$name?*` is the sequence). For callers that
 * build their own expressions (Schematron's rules): results are read as they come, nodes as
 * pointers, no budget applied. `keepCompiled`: leave the compiled expression in fontoxpath's
 * cache, which the caller then bounds (`compiledExpressions`; ADR 0048, ADR 0053). The
 * absolute paths libxml2 can select are selected by it, as in `evaluateXPath31Counted` (ADR 0055).
 */
export function evaluateXPath31Plain(
  view: Xpath31View,
  expression: string,
  namespaces: Record<string, string>,
  nodes: Record<string, readonly NodeRef[]> = {},
  keepCompiled = false,
): PlainItem[] {
  const plan = planPaths(expression, namespaces);
  const selections = plan && selectPaths(view, plan, namespaces);
  if (plan && selections) {
    try {
      return withSelections(view, plan, selections, () =>
        evaluatePlain(view, plan.expression, namespaces, nodes, keepCompiled),
      );
    } catch {
      // Evaluated as written below: its error is the one to tell, in the schema's own terms.
    }
  }
  return evaluatePlain(view, expression, namespaces, nodes, keepCompiled);
}

function evaluatePlain(
  view: Xpath31View,
  expression: string,
  namespaces: Record<string, string>,
  nodes: Record<string, readonly NodeRef[]>,
  keepCompiled: boolean,
): PlainItem[] {
  view.refresh();
  const bound = new Map(Object.entries(namespaces));
  const variables: Record<string, unknown> = {};
  for (const [name, pointers] of Object.entries(nodes))
    variables[name] = pointers.map((ptr) => view.wrap(ptr));
  const results = evaluateXPath(
    expression,
    view.document,
    view as unknown as IDomFacade,
    variables,
    evaluateXPath.ALL_RESULTS_TYPE,
    {
      namespaceResolver: (prefix: string) => (prefix === '' ? null : (bound.get(prefix) ?? null)),
      language: evaluateXPath.XPATH_3_1_LANGUAGE,
      disableCache: !keepCompiled,
    },
  ) as unknown[];
  view.refresh();
  return results.map((value) =>
    value instanceof LxNode
      ? { node: value.ptr }
      : typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? value
        : String(value),
  );
}
