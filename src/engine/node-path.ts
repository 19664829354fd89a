import {
  firstAttribute,
  firstChild,
  localName,
  type NodeRef,
  NodeType,
  namespacePrefix,
  namespaceUri,
  nextSibling,
  nodeType,
  parentOf,
} from './libxml2/tree.js';
import { XML_NAMESPACE } from './marks.js';
import type { Namespaces } from './xpath-guard.js';

/**
 * A step's node test: the step as written, and which siblings it matches (a position counts the
 * preceding siblings the same test matches, so it is found by that test, not by the node's own name).
 */
interface Test {
  step: string;
  /** Identifies the test among a parent's tests, for the memo. */
  key: string;
  matches(sibling: NodeRef): boolean;
}

/** Per parent (or per element, for attributes) and test: each matching node's position, and how many match. */
type Positions = Map<string, { of: Map<NodeRef, number>; total: number }>;

/**
 * Writes each node's positional location path (docs/behaviour.md §2, `output: "paths"`), an
 * XPath 1.0 expression that selects exactly that node when evaluated again with the same
 * `namespaces`: a name in a namespace uses the first prefix the caller bound to its URI, or
 * `*[local-name()='x']` when the caller bound none; a position is written where siblings share
 * the step's test (`dependency[3]`, `text()[2]`). Each parent's children are scanned once per
 * test, so the paths of 20,000 records under one root cost one pass, not one each.
 */
export class PathWriter {
  readonly #prefixes = new Map<string, string>();
  readonly #children = new Map<NodeRef, Positions>();
  readonly #attributes = new Map<NodeRef, Positions>();

  constructor(namespaces: Namespaces) {
    for (const [prefix, uri] of Object.entries(namespaces)) {
      if (prefix !== 'xml' && !this.#prefixes.has(uri)) this.#prefixes.set(uri, prefix);
    }
    this.#prefixes.set(XML_NAMESPACE, 'xml');
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
    const test = attribute ? this.#attributeTest(node) : this.#childTest(node, type);
    const memo = attribute ? this.#attributes : this.#children;
    let tests = memo.get(parent);
    if (!tests) {
      tests = new Map();
      memo.set(parent, tests);
    }
    let positions = tests.get(test.key);
    if (!positions) {
      positions = count(attribute ? attributesOf(parent) : childrenOf(parent), test);
      tests.set(test.key, positions);
    }
    return positions.total > 1 ? `${test.step}[${positions.of.get(node) ?? 1}]` : test.step;
  }

  #childTest(node: NodeRef, type: number): Test {
    switch (type) {
      case NodeType.XML_ELEMENT_NODE:
        return this.#nameTest(node, NodeType.XML_ELEMENT_NODE, '');
      case NodeType.XML_TEXT_NODE:
      case NodeType.XML_CDATA_SECTION_NODE:
        return {
          step: 'text()',
          key: 'text()',
          matches: (sibling) => {
            const type = nodeType(sibling);
            return type === NodeType.XML_TEXT_NODE || type === NodeType.XML_CDATA_SECTION_NODE;
          },
        };
      case NodeType.XML_COMMENT_NODE:
        return {
          step: 'comment()',
          key: 'comment()',
          matches: (sibling) => nodeType(sibling) === NodeType.XML_COMMENT_NODE,
        };
      case NodeType.XML_PI_NODE: {
        const target = localName(node);
        return {
          step: `processing-instruction('${target}')`,
          key: `?${target}`,
          matches: (sibling) => nodeType(sibling) === NodeType.XML_PI_NODE && localName(sibling) === target,
        };
      }
      default:
        return { step: 'node()', key: 'node()', matches: () => true };
    }
  }

  #attributeTest(attr: NodeRef): Test {
    return this.#nameTest(attr, NodeType.XML_ATTRIBUTE_NODE, '@');
  }

  /** `p:x` (bound prefix), `x` (no namespace), or `*[local-name()='x']` (a namespace the caller did not bind). */
  #nameTest(node: NodeRef, type: number, axis: string): Test {
    const local = localName(node);
    const uri = namespaceUri(node);
    const prefix = uri === null ? undefined : this.#prefixes.get(uri);
    const named = (sibling: NodeRef) => nodeType(sibling) === type && localName(sibling) === local;
    if (uri !== null && prefix === undefined) {
      return { step: `${axis}*[local-name()='${local}']`, key: `*${local}`, matches: named };
    }
    return {
      step: `${axis}${prefix === undefined ? '' : `${prefix}:`}${local}`,
      key: `${uri ?? ''} ${local}`,
      matches: (sibling) => named(sibling) && namespaceUri(sibling) === uri,
    };
  }
}

function count(nodes: Iterable<NodeRef>, test: Test): { of: Map<NodeRef, number>; total: number } {
  const of = new Map<NodeRef, number>();
  for (const node of nodes) if (test.matches(node)) of.set(node, of.size + 1);
  return { of, total: of.size };
}

function* childrenOf(parent: NodeRef): Iterable<NodeRef> {
  for (let child = firstChild(parent); child !== 0; child = nextSibling(child)) {
    if (nodeType(child) !== NodeType.XML_DTD_NODE) yield child;
  }
}

function* attributesOf(element: NodeRef): Iterable<NodeRef> {
  for (let attr = firstAttribute(element); attr !== 0; attr = nextSibling(attr)) yield attr;
}
