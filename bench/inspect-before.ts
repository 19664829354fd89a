/**
 * xml_inspect's engine as it was before the outline (commit 5c09509, src/engine/inspect/inspect.ts): element
 * names and counts, element namespaces, totals. Kept only as the benchmark's baseline
 * (bench/inspect-outline.ts); it runs on today's tree walk.
 */
import type { XmlDocument } from 'libxml2-wasm';
import {
  attributeCount,
  documentPointer,
  NodeType,
  namespaceOf,
  qualifiedName,
  walk,
} from '../src/engine/libxml2/tree.js';
import { parseDocument, type XmlSource } from '../src/engine/parse.js';
import { MAX_INSPECT_NAME_CHARS, MAX_INSPECT_NAMES, MAX_INSPECT_NAMESPACES } from '../src/limits.js';

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
  /** Element names as written, with their counts, most frequent first (within the budget). */
  elements: Array<{ name: string; count: number }>;
  namespaces: NamespaceUse[];
  totalElements: number;
  attributes: number;
  /** Present when `elements` or `namespaces` were cut to the budget: how many there are in all. */
  distinctElements?: number;
  distinctNamespaces?: number;
  truncated?: true;
}

export function inspectBefore(xml: XmlSource): InspectResult {
  const doc = parseDocument(xml, 'query');
  try {
    return inspectDocumentBefore(doc);
  } finally {
    doc.dispose();
  }
}

/** `inspect` on a document parsed for querying, which stays the caller's. */
export function inspectDocumentBefore(doc: XmlDocument): InspectResult {
  const docPtr = documentPointer(doc);
  const counts = new Map<string, number>();
  const namespaces = new Map<string, { prefixes: Set<string | null>; elements: number }>();
  let maxDepth = 0;
  let root = '';
  let totalElements = 0;
  let attributes = 0;
  walk(docPtr, (node, type, depth) => {
    if (type === NodeType.XML_DTD_NODE) return;
    // Comments and PIs beside the root element (depth 1) sit outside it: they add no depth.
    if (depth > 1 || type === NodeType.XML_ELEMENT_NODE) maxDepth = Math.max(maxDepth, depth);
    if (type !== NodeType.XML_ELEMENT_NODE) return;
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
  const elements = [...counts]
    .map(([name, count]) => ({ name, count }))
    .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
  const listed = withinNameBudget(elements);
  const result: InspectResult = {
    root,
    maxDepth,
    elements: listed,
    namespaces: [...namespaces].slice(0, MAX_INSPECT_NAMESPACES).map(([uri, use]) => ({
      uri,
      prefixes: [...use.prefixes],
      elements: use.elements,
    })),
    totalElements,
    attributes,
  };
  if (listed.length < elements.length || namespaces.size > MAX_INSPECT_NAMESPACES) {
    result.distinctElements = elements.length;
    result.distinctNamespaces = namespaces.size;
    result.truncated = true;
  }
  return result;
}

/** The most frequent names, up to MAX_INSPECT_NAMES of them and MAX_INSPECT_NAME_CHARS in all. */
function withinNameBudget(
  elements: Array<{ name: string; count: number }>,
): Array<{ name: string; count: number }> {
  let chars = 0;
  let end = 0;
  while (end < Math.min(elements.length, MAX_INSPECT_NAMES)) {
    chars += (elements[end] as { name: string }).name.length;
    if (chars > MAX_INSPECT_NAME_CHARS) break;
    end++;
  }
  return elements.slice(0, end);
}
