import { attributeCount, documentPointer, NodeType, walk } from './libxml2/tree.js';
import { withDocument, type XmlSource } from './parse.js';

export interface CheckResult {
  wellFormed: true;
  elements: number;
  /** Elements, attributes, text, CDATA, comments and processing instructions. */
  nodes: number;
}

/** Succeeds with node counts, or throws a `not-well-formed` EngineError with line and column. */
export function check(xml: XmlSource): CheckResult {
  return withDocument(xml, 'check', (doc) => {
    let elements = 0;
    let nodes = 0;
    walk(documentPointer(doc), (node, type) => {
      if (type === NodeType.XML_DTD_NODE) return;
      nodes++;
      if (type === NodeType.XML_ELEMENT_NODE) {
        elements++;
        nodes += attributeCount(node);
      }
    });
    return { wellFormed: true, elements, nodes };
  });
}
