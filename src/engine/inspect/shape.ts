import type { XmlDocument } from 'libxml2-wasm';
import { attributeValue, holdsOnlyText, leafText } from '../libxml2/node-values.js';
import {
  documentPointer,
  holdsText,
  localName,
  type NodeFields,
  NodeType,
  namespaceAt,
  nodeFields,
  walk,
} from '../libxml2/tree.js';
import { FIELDS_PER_LINE } from './fields.js';
import { ValueProfile } from './value-profile.js';

/** One distinct element path (`/project/dependencies/dependency`): the facts of its elements. */
export interface PathShape {
  /** Index into `DocumentShape.names`. */
  name: number;
  parent: PathShape | undefined;
  /** The root element's path is at depth 1. */
  depth: number;
  /** The length of the path written out (`/a/b`): what its outline line takes at least. */
  chars: number;
  /** Elements at this path. */
  count: number;
  /** Whether one of them holds a character other than white space (text or CDATA). */
  text: boolean;
  /** Attribute name (index into `names`) → elements at this path carrying it; first seen first. */
  attributes: Map<number, number> | undefined;
  /** Child element name → its path, first seen first. */
  children: Map<number, PathShape> | undefined;
  /** The child path the walk found last. */
  last: PathShape | undefined;
  /** Attribute name → its values here, when the walk gathers values. */
  attributeValues: Map<number, ValueProfile> | undefined;
  /** The text of the elements here that hold text and no element, when the walk gathers values. */
  textValues: ValueProfile | undefined;
}

/** A namespace URI as the document uses it. */
export interface NamespaceShape {
  uri: string;
  /** Prefixes the document writes it with, first seen first; `null` stands for the default namespace. */
  prefixes: Array<string | null>;
  elements: number;
  attributes: number;
}

/** What one walk of a document gathers. */
export interface DocumentShape {
  /**
   * Element and attribute names as written (prefix included), in the order first seen. A name
   * written with one prefix bound to two URIs is one name here, as it is written.
   */
  names: string[];
  /** The root element's path, parent of nothing else; `undefined` for a document without one. */
  root: PathShape | undefined;
  maxDepth: number;
  totalElements: number;
  totalAttributes: number;
  paths: number;
  /** By URI, first seen first. */
  namespaces: NamespaceShape[];
  /** Element name (index into `names`) → its namespace when written without a prefix in one. */
  defaultNamespaceOf: Map<number, NamespaceShape>;
}

interface Declaration {
  prefix: string | null;
  /** Distinct prefixes are numbered from 1; 0 is "no prefix". */
  prefixKey: number;
  use: NamespaceShape;
}

/**
 * Walks the document once, in document order and without recursion, and gathers every
 * element path with its count, attributes, children and text, and every namespace the elements
 * and attributes use. Time is linear in the nodes and attributes: names are read from libxml2
 * once per distinct (prefix, name pointer), not once per node, and the nodes' fields through
 * `fields` (a view of libxml2's memory unless a test asks for the wrapper's accessors). With
 * `values` (the default) it also reads every attribute's value and every leaf's text once, into a
 * bounded profile per field (value-profile.ts); without, it reads names and counts only.
 */
export function documentShape(
  doc: XmlDocument,
  fields: NodeFields = nodeFields(),
  options: { values?: boolean } = {},
): DocumentShape {
  const values = options.values ?? true;
  const names: string[] = [];
  /**
   * libxml2 name pointer → index into `names`, one map per prefix (0: none). A parsed document
   * interns every element and attribute name in its dictionary, so a pointer stands for one
   * local name (test/engine/inspect/inspect.test.ts holds this).
   */
  const byPointer: Array<Map<number, number>> = [new Map()];
  const declarations = new Map<number, Declaration>();
  const prefixKeys = new Map<string, number>();
  const namespaces = new Map<string, NamespaceShape>();
  const defaultNamespaceOf = new Map<number, NamespaceShape>();

  const declaration = (ns: number): Declaration => {
    let known = declarations.get(ns);
    if (known) return known;
    const { uri, prefix } = namespaceAt(ns);
    let use = namespaces.get(uri);
    if (!use) {
      use = { uri, prefixes: [], elements: 0, attributes: 0 };
      namespaces.set(uri, use);
    }
    if (!use.prefixes.includes(prefix)) use.prefixes.push(prefix);
    let prefixKey = 0;
    if (prefix !== null) {
      prefixKey = prefixKeys.get(prefix) ?? prefixKeys.size + 1;
      if (!prefixKeys.has(prefix)) {
        prefixKeys.set(prefix, prefixKey);
        byPointer[prefixKey] = new Map();
      }
    }
    known = { prefix, prefixKey, use };
    declarations.set(ns, known);
    return known;
  };
  /** The node's name as written, as an index into `names`; `ns` is its declaration, if any. */
  const nameOf = (node: number, ns: Declaration | undefined): number => {
    const prefixKey = ns === undefined ? 0 : ns.prefixKey;
    const known = byPointer[prefixKey] as Map<number, number>;
    const pointer = fields.name(node);
    let index = known.get(pointer);
    if (index === undefined) {
      const local = localName(node);
      index = names.length;
      names.push(prefixKey === 0 ? local : `${ns?.prefix}:${local}`);
      known.set(pointer, index);
    }
    return index;
  };

  const top = newPath(-1, undefined, 0, 0);
  /** The path of the element open at each depth; [0] is the document node. */
  const open: PathShape[] = [top];
  let paths = 0;
  let maxDepth = 0;
  let totalElements = 0;
  let totalAttributes = 0;
  walk(
    documentPointer(doc),
    (node, type, depth) => {
      if (type === NodeType.XML_DTD_NODE) return;
      // Comments and PIs beside the root element (depth 1) sit outside it: they add no depth.
      if (depth > 1 || type === NodeType.XML_ELEMENT_NODE) maxDepth = Math.max(maxDepth, depth);
      const parent = open[depth - 1] as PathShape;
      if (type === NodeType.XML_TEXT_NODE || type === NodeType.XML_CDATA_SECTION_NODE) {
        if (!parent.text && depth > 1 && holdsText(node, fields)) parent.text = true;
        return;
      }
      if (type !== NodeType.XML_ELEMENT_NODE) return;
      totalElements++;
      const nsPointer = fields.ns(node);
      const ns = nsPointer === 0 ? undefined : declaration(nsPointer);
      const name = nameOf(node, ns);
      if (ns) {
        ns.use.elements++;
        if (ns.prefix === null && !defaultNamespaceOf.has(name)) defaultNamespaceOf.set(name, ns.use);
      }
      // Siblings often share a name (records): the last child path looked up is tried first.
      let path = parent.last?.name === name ? parent.last : undefined;
      parent.children ??= new Map();
      path ??= parent.children.get(name);
      if (!path) {
        path = newPath(name, parent, depth, parent.chars + 1 + (names[name] as string).length);
        parent.children.set(name, path);
        paths++;
      }
      parent.last = path;
      path.count++;
      open[depth] = path;
      for (let attr = fields.properties(node); attr !== 0; attr = fields.next(attr)) {
        totalAttributes++;
        const attrNs = fields.ns(attr);
        const attrDeclaration = attrNs === 0 ? undefined : declaration(attrNs);
        if (attrDeclaration) attrDeclaration.use.attributes++;
        const attrName = nameOf(attr, attrDeclaration);
        path.attributes ??= new Map();
        path.attributes.set(attrName, (path.attributes.get(attrName) ?? 0) + 1);
        if (values) {
          path.attributeValues ??= new Map();
          let profile = path.attributeValues.get(attrName);
          // A line shows the values of its first FIELDS_PER_LINE fields: an element with 10^5
          // attributes would otherwise cost a profile and a read of each (issue 33 F8).
          if (!profile && path.attributeValues.size < FIELDS_PER_LINE) {
            profile = new ValueProfile();
            path.attributeValues.set(attrName, profile);
          }
          if (profile) attributeValue(attr, fields, profile);
        }
      }
      // A path already seen with an element inside shows no text values: skip reading them.
      if (values && path.children === undefined && holdsOnlyText(node, fields)) {
        path.textValues ??= new ValueProfile();
        leafText(node, fields, path.textValues);
      }
    },
    fields,
  );
  const root = top.children?.values().next().value;
  return {
    names,
    root,
    maxDepth,
    totalElements,
    totalAttributes,
    paths,
    namespaces: [...namespaces.values()],
    defaultNamespaceOf,
  };
}

/** A path seen for the first time; every path has all its fields from the start (one shape for V8). */
function newPath(name: number, parent: PathShape | undefined, depth: number, chars: number): PathShape {
  return {
    name,
    parent,
    depth,
    chars,
    count: 0,
    text: false,
    attributes: undefined,
    children: undefined,
    last: undefined,
    attributeValues: undefined,
    textValues: undefined,
  };
}
