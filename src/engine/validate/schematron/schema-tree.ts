import { EngineError } from '../../errors.js';
import { lineOf } from '../../libxml2/serialize.js';
import {
  attributesOf,
  firstChild,
  localName,
  type NodeRef,
  NodeType,
  namespaceUri,
  nextSibling,
  nodeType,
  stringValue,
} from '../../libxml2/tree.js';

/** An element of the schema, copied out of libxml2 once, so abstract patterns can be instantiated as data. */
export interface SchemaElement {
  /** The local name, for elements in a Schematron namespace; `{uri}local` for any other. */
  name: string;
  attributes: Record<string, string>;
  children: Array<SchemaElement | string>;
  line: number;
}

export const ISO_SCHEMATRON_NAMESPACE = 'http://purl.oclc.org/dsdl/schematron';
export const SCHEMATRON_1_5_NAMESPACE = 'http://www.ascc.net/xml/schematron';
const XSLT_NAMESPACE = 'http://www.w3.org/1999/XSL/Transform';

/** Elements copied at most: a schema of 100,000 rules is refused before it costs a walk of each (src/limits.ts). */
export function schemaTree(root: NodeRef, maxElements: number): SchemaElement {
  let count = 0;
  const copy = (element: NodeRef): SchemaElement => {
    if (++count > maxElements) {
      throw new EngineError({
        code: 'limit-exceeded',
        message: `The Schematron schema in \`xsd\` has more than ${maxElements.toLocaleString('en-US')} elements, more than one call checks. Split it into phases or smaller schemas and validate with each.`,
      });
    }
    const uri = namespaceUri(element);
    const local = localName(element);
    if (uri === XSLT_NAMESPACE) {
      throw new EngineError({
        code: 'invalid-schema',
        message: `The Schematron schema holds \`xsl:${local}\` (line ${lineOf(element) ?? '?'}), an XSLT construct; rules here are evaluated as XPath, not run as XSLT. Write the test without it (an \`xsl:function\`'s body inline, a \`key()\` lookup as a path) and call again.`,
      });
    }
    const name =
      uri === ISO_SCHEMATRON_NAMESPACE || uri === SCHEMATRON_1_5_NAMESPACE ? local : `{${uri ?? ''}}${local}`;
    const attributes: Record<string, string> = Object.create(null);
    for (const [attribute, value] of attributesOf(element, () => true)) attributes[attribute] = value;
    const children: Array<SchemaElement | string> = [];
    for (let child = firstChild(element); child !== 0; child = nextSibling(child)) {
      const type = nodeType(child);
      if (type === NodeType.XML_ELEMENT_NODE) children.push(copy(child));
      else if (type === NodeType.XML_TEXT_NODE || type === NodeType.XML_CDATA_SECTION_NODE)
        children.push(stringValue(child));
    }
    return { name, attributes, children, line: lineOf(element) ?? 0 };
  };
  return copy(root);
}

export function elementsOf(element: SchemaElement, name?: string): SchemaElement[] {
  return element.children.filter(
    (child): child is SchemaElement =>
      typeof child !== 'string' && (name === undefined || child.name === name),
  );
}
