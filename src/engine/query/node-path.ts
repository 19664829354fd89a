import {
  firstAttribute,
  firstChild,
  localName,
  type NodeRef,
  NodeType,
  namePointer,
  namespaceAt,
  namespacePointer,
  namespacePrefix,
  nextSibling,
  nodeType,
  parentOf,
} from '../libxml2/tree.js';
import { XML_NAMESPACE } from '../marks.js';
import type { Namespaces } from './xpath-guard.js';

/** A step's node test: the step as written, and the key its siblings are counted by (`#countOne`). */
interface Test {
  step: string;
  key: number;
}

/*
 * Count keys are numbers, not strings, since a wide parent has millions of children to count:
 * a name test in any namespace (`*[local-name()='x']`) is the name's dictionary pointer; a name
 * in one namespace (or none) adds the namespace's number times 2^32; the kind tests are below 0.
 */
const TEXT_KEY = -1;
const COMMENT_KEY = -2;
const ANY_NODE_KEY = -3;
const NAMESPACE_STRIDE = 2 ** 32;

/**
 * One parent's children (or one element's attributes), counted by every test at once: the total
 * each test matches, and a cursor that numbers the nodes as they are asked for. Paths are asked
 * in document order, so the cursor only moves on; a node behind it (the next expression of a
 * batch) starts the count again from the first sibling.
 */
interface Siblings {
  totals: Map<number, number>;
  counts: Map<number, number>;
  /** The last sibling counted into `counts`; 0 before the first. */
  cursor: NodeRef;
}

/**
 * Writes each node's positional location path (docs/behaviour.md §2, `output: "paths"`), an
 * XPath 1.0 expression that selects exactly that node when evaluated again with the same
 * `namespaces`: a name in a namespace uses the first prefix the caller bound to its URI, or
 * `*[local-name()='x']` when the caller bound none; a position is written where siblings share
 * the step's test (`dependency[3]`, `text()[2]`). A parent's children are read once for every
 * test's total, then numbered as the paths reach them; a name or namespace is decoded once per
 * libxml2 pointer (names are interned in the document's dictionary), so a flat document of
 * millions of siblings costs one pass, not one per sibling or per name.
 */
export class PathWriter {
  readonly #prefixes = new Map<string, string>();
  readonly #children = new Map<NodeRef, Siblings>();
  readonly #attributes = new Map<NodeRef, Siblings>();
  readonly #names = new Map<number, string>();
  readonly #uris = new Map<number, string>();
  /** Each namespace URI's number (from 1), and each namespace pointer's; 0 is no namespace. */
  readonly #uriNumbers = new Map<string, number>();
  readonly #namespaceNumbers = new Map<number, number>();
  /** Each processing-instruction target's key. */
  readonly #targets = new Map<string, number>();

  /** Prefixes this writer chose for namespaces the caller did not bind (`bindUnbound`). */
  readonly #chosen: Record<string, string> = {};
  readonly #bindUnbound: boolean;

  /**
   * `bindUnbound`: a namespace the caller did not bind gets a prefix of its own (the one the
   * document wrote, when free, else `ns1`, `ns2`, …) instead of `*[local-name()='x']`, and
   * `chosenBindings` says which, so a path names its elements as a query can (xml_validate's
   * violations, where no caller binds anything).
   */
  constructor(namespaces: Namespaces, { bindUnbound = false }: { bindUnbound?: boolean } = {}) {
    for (const [prefix, uri] of Object.entries(namespaces)) {
      if (prefix !== 'xml' && !this.#prefixes.has(uri)) this.#prefixes.set(uri, prefix);
    }
    this.#prefixes.set(XML_NAMESPACE, 'xml');
    this.#bindUnbound = bindUnbound;
  }

  /** The bindings `bindUnbound` chose, prefix → URI, in the order the paths first needed them. */
  get chosenBindings(): Readonly<Record<string, string>> {
    return this.#chosen;
  }

  #choosePrefix(uri: string, written: string | null): string {
    const taken = (prefix: string) => [...this.#prefixes.values()].includes(prefix);
    let prefix = written !== null && written !== 'xml' && !taken(written) ? written : undefined;
    for (let n = 1; prefix === undefined; n++) if (!taken(`ns${n}`)) prefix = `ns${n}`;
    this.#prefixes.set(uri, prefix);
    Object.defineProperty(this.#chosen, prefix, { value: uri, enumerable: true });
    return prefix;
  }

  pathOf(node: NodeRef): string {
    const steps: string[] = [];
    for (let current = node; ; ) {
      const type = nodeType(current);
      if (type === NodeType.XML_DOCUMENT_NODE) break;
      const parent = parentOf(current);
      if (parent === 0) break;
      steps.push(this.#stepOf(current, type, parent));
      current = parent;
    }
    return `/${steps.reverse().join('/')}`;
  }

  #stepOf(node: NodeRef, type: number, parent: NodeRef): string {
    if (type === NodeType.XML_NAMESPACE_DECL) {
      const prefix = namespacePrefix(node);
      return prefix === '' ? "namespace::*[local-name()='']" : `namespace::${prefix}`;
    }
    const attribute = type === NodeType.XML_ATTRIBUTE_NODE;
    const test = this.#testOf(node, type, attribute ? '@' : '');
    const memo = attribute ? this.#attributes : this.#children;
    let siblings = memo.get(parent);
    if (!siblings) {
      siblings = { totals: this.#count(parent, attribute, undefined), counts: new Map(), cursor: 0 };
      memo.set(parent, siblings);
    }
    if ((siblings.totals.get(test.key) ?? 0) <= 1) return test.step;
    return `${test.step}[${this.#positionOf(node, parent, attribute, siblings, test.key)}]`;
  }

  /** The node's position among the siblings its test matches, moving the cursor up to it. */
  #positionOf(node: NodeRef, parent: NodeRef, attribute: boolean, siblings: Siblings, key: number): number {
    if (siblings.cursor !== node) {
      let next = siblings.cursor === 0 ? first(parent, attribute) : nextSibling(siblings.cursor);
      for (; next !== 0 && next !== node; next = nextSibling(next)) this.#countOne(next, siblings.counts);
      if (next === 0) {
        // Behind the cursor: count again from the first sibling.
        siblings.counts = this.#count(parent, attribute, node);
      } else {
        this.#countOne(node, siblings.counts);
      }
      siblings.cursor = node;
    }
    return siblings.counts.get(key) ?? 1;
  }

  /** Every sibling's keys counted, up to and including `until` when given. */
  #count(parent: NodeRef, attribute: boolean, until: NodeRef | undefined): Map<number, number> {
    const counts = new Map<number, number>();
    for (let node = first(parent, attribute); node !== 0; node = nextSibling(node)) {
      this.#countOne(node, counts);
      if (node === until) break;
    }
    return counts;
  }

  /** Adds one to each test the node matches: its name in its namespace and in any (`*[local-name()]`), or its kind. */
  #countOne(node: NodeRef, counts: Map<number, number>): void {
    const type = nodeType(node);
    if (type === NodeType.XML_DTD_NODE) return;
    const add = (key: number) => counts.set(key, (counts.get(key) ?? 0) + 1);
    if (type === NodeType.XML_ELEMENT_NODE || type === NodeType.XML_ATTRIBUTE_NODE) {
      const name = namePointer(node);
      add(name);
      add(name + (this.#namespaceNumber(node) + 1) * NAMESPACE_STRIDE);
    } else if (type === NodeType.XML_TEXT_NODE || type === NodeType.XML_CDATA_SECTION_NODE) {
      add(TEXT_KEY);
    } else if (type === NodeType.XML_COMMENT_NODE) {
      add(COMMENT_KEY);
    } else if (type === NodeType.XML_PI_NODE) {
      add(this.#targetKey(localName(node)));
    }
    add(ANY_NODE_KEY);
  }

  #testOf(node: NodeRef, type: number, axis: string): Test {
    switch (type) {
      case NodeType.XML_ELEMENT_NODE:
      case NodeType.XML_ATTRIBUTE_NODE:
        return this.#nameTest(node, axis);
      case NodeType.XML_TEXT_NODE:
      case NodeType.XML_CDATA_SECTION_NODE:
        return { step: 'text()', key: TEXT_KEY };
      case NodeType.XML_COMMENT_NODE:
        return { step: 'comment()', key: COMMENT_KEY };
      case NodeType.XML_PI_NODE: {
        const target = localName(node);
        return { step: `processing-instruction('${target}')`, key: this.#targetKey(target) };
      }
      default:
        return { step: 'node()', key: ANY_NODE_KEY };
    }
  }

  /** `p:x` (bound prefix), `x` (no namespace), or `*[local-name()='x']` (a namespace the caller did not bind). */
  #nameTest(node: NodeRef, axis: string): Test {
    const local = this.#localOf(node);
    const uri = this.#uriOf(node);
    let prefix = uri === null ? undefined : this.#prefixes.get(uri);
    if (uri !== null && prefix === undefined && this.#bindUnbound) {
      prefix = this.#choosePrefix(uri, namespaceAt(namespacePointer(node)).prefix);
    }
    const name = namePointer(node);
    if (uri !== null && prefix === undefined) {
      return { step: `${axis}*[local-name()='${local}']`, key: name };
    }
    return {
      step: `${axis}${prefix === undefined ? '' : `${prefix}:`}${local}`,
      key: name + (this.#namespaceNumber(node) + 1) * NAMESPACE_STRIDE,
    };
  }

  #localOf(node: NodeRef): string {
    const pointer = namePointer(node);
    let local = this.#names.get(pointer);
    if (local === undefined) {
      local = localName(node);
      this.#names.set(pointer, local);
    }
    return local;
  }

  #uriOf(node: NodeRef): string | null {
    const pointer = namespacePointer(node);
    if (pointer === 0) return null;
    let uri = this.#uris.get(pointer);
    if (uri === undefined) {
      uri = namespaceAt(pointer).uri;
      this.#uris.set(pointer, uri);
    }
    return uri;
  }

  /** The node's namespace as a number, equal for equal URIs whichever declaration they came from; 0 for none. */
  #namespaceNumber(node: NodeRef): number {
    const pointer = namespacePointer(node);
    if (pointer === 0) return 0;
    let number = this.#namespaceNumbers.get(pointer);
    if (number === undefined) {
      const uri = this.#uriOf(node) as string;
      number = this.#uriNumbers.get(uri) ?? this.#uriNumbers.size + 1;
      this.#uriNumbers.set(uri, number);
      this.#namespaceNumbers.set(pointer, number);
    }
    return number;
  }

  #targetKey(target: string): number {
    let key = this.#targets.get(target);
    if (key === undefined) {
      key = -4 - this.#targets.size;
      this.#targets.set(target, key);
    }
    return key;
  }
}

function first(parent: NodeRef, attribute: boolean): NodeRef {
  return attribute ? firstAttribute(parent) : firstChild(parent);
}
