import type { XmlDocument } from 'libxml2-wasm';
import { XmlNodeType } from 'libxml2-wasm/lib/libxml2.mjs';
import { documentPointer, parseDocument, type XmlSource } from './parse.js';
import { attributeCount, namespaceOf, qualifiedName, walk } from './tree.js';

export interface NamespaceUse {
  uri: string;
  /** Prefixes the document writes it with; `null` stands for the default namespace. */
  prefixes: Array<string | null>;
  /** Elements in this namespace. */
  elements: number;
}

export interface InspectResult {
  root: string;
  /** Root element is level 1; every node below it (element, text, comment, PI) one deeper. */
  maxDepth: number;
  /** Every element name as written, with its count, most frequent first. */
  elements: Array<{ name: string; count: number }>;
  namespaces: NamespaceUse[];
  totalElements: number;
  attributes: number;
}

export function inspect(xml: XmlSource): InspectResult {
  const doc = parseDocument(xml, 'query');
  try {
    return inspectDocument(doc);
  } finally {
    doc.dispose();
  }
}

/** `inspect` on a document parsed for querying, which stays the caller's. */
export function inspectDocument(doc: XmlDocument): InspectResult {
  const docPtr = documentPointer(doc);
  const counts = new Map<string, number>();
  const namespaces = new Map<string, { prefixes: Set<string | null>; elements: number }>();
  let maxDepth = 0;
  let root = '';
  let totalElements = 0;
  let attributes = 0;
  walk(docPtr, (node, type, depth) => {
    if (type === XmlNodeType.XML_DTD_NODE) return;
    // Comments and PIs beside the root element (depth 1) sit outside it: they add no depth.
    if (depth > 1 || type === XmlNodeType.XML_ELEMENT_NODE) maxDepth = Math.max(maxDepth, depth);
    if (type !== XmlNodeType.XML_ELEMENT_NODE) return;
    const name = qualifiedName(node);
    if (depth === 1) root = name;
    totalElements++;
    attributes += attributeCount(node);
    counts.set(name, (counts.get(name) ?? 0) + 1);
    const ns = namespaceOf(node);
    if (ns) {
      const use = namespaces.get(ns.uri) ?? { prefixes: new Set(), elements: 0 };
      use.prefixes.add(ns.prefix);
      use.elements++;
      namespaces.set(ns.uri, use);
    }
  });
  return {
    root,
    maxDepth,
    elements: [...counts]
      .map(([name, count]) => ({ name, count }))
      .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1)),
    namespaces: [...namespaces].map(([uri, use]) => ({
      uri,
      prefixes: [...use.prefixes],
      elements: use.elements,
    })),
    totalElements,
    attributes,
  };
}
