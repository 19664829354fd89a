import { describe, expect, it } from 'vitest';
import { type DocumentSize, generateDocument, SIZES } from '../../../bench/documents.js';
import { type DocumentShape, documentShape, type PathShape } from '../../../src/engine/inspect/shape.js';
import { heapBytes } from '../../../src/engine/libxml2/memory.js';
import {
  accessorFields,
  documentPointer,
  localName,
  type NodeFields,
  NodeType,
  nodeFields,
  stringValue,
  walk,
} from '../../../src/engine/libxml2/tree.js';
import { type ParsePurpose, parseDocument } from '../../../src/engine/parse.js';
import { docbookBook, manyAttributes } from '../../support/shape-documents.js';

const deep = (levels: number) => `${'<d>'.repeat(levels)}x${'</d>'.repeat(levels)}`;

/** Documents whose trees differ in every way the walk reads: [label, text, parse purpose]. */
const DOCUMENTS: Array<[string, string, ParsePurpose]> = [
  [
    'namespaces: default, prefixed, redeclared, on attributes',
    '<a:feed xmlns:a="urn:a" xmlns="urn:d" xmlns:x="urn:x"><entry x:id="1" a:k="2" plain="3"><a:t xmlns:a="urn:other">x</a:t></entry><x:e xmlns="urn:e"><inner/></x:e><entry/></a:feed>',
    'query',
  ],
  [
    'mixed content, comments, processing instructions, blank text',
    '<?pi before?><!--c--><p>one <b>two</b> three <i>four<!--in--></i><?pi in?>  <br/>\n</p><!--after-->',
    'query',
  ],
  [
    'CDATA kept as CDATA nodes',
    '<r><a><![CDATA[ <x> ]]></a><b><![CDATA[   ]]></b> <c>t<![CDATA[u]]></c></r>',
    'validate',
  ],
  [
    'an internal subset with a default attribute and an entity',
    '<!DOCTYPE r [<!ATTLIST e d CDATA "def"><!ENTITY w "word">]><r><e>&w;</e><e d="set"/></r>',
    'query',
  ],
  ['250 levels deep', deep(250), 'query'],
  ['10,000 siblings', `<r>${'<s a="1"/>'.repeat(5_000)}${'<t>x</t>'.repeat(5_000)}</r>`, 'query'],
  [
    'non-ASCII names',
    '<Ωμέγα xmlns:ü="urn:u" 名前="値"><ü:straße café="ja">ok</ü:straße><数据>１</数据><𐐀𐐁 ʃ="1"/></Ωμέγα>',
    'query',
  ],
  ['the 200 KB benchmark document', generateDocument(SIZES[1] as DocumentSize).xml, 'query'],
  ['a DocBook book', docbookBook(), 'query'],
  ['one element with 2,000 attributes', manyAttributes(2_000), 'query'],
];

/** The shape without its cycles (a path's parent, its last child), for a comparison that ends. */
function flat(shape: DocumentShape): unknown {
  const paths: unknown[] = [];
  const stack: PathShape[] = shape.root ? [shape.root] : [];
  while (stack.length > 0) {
    const path = stack.pop() as PathShape;
    const children = [...(path.children?.values() ?? [])];
    paths.push({
      name: path.name,
      parent: path.parent?.name,
      depth: path.depth,
      count: path.count,
      text: path.text,
      attributes: [...(path.attributes ?? [])],
      children: children.map((child) => child.name),
    });
    stack.push(...children.reverse());
  }
  const { root: _root, defaultNamespaceOf, ...rest } = shape;
  return { ...rest, paths, defaultNamespaceOf: [...defaultNamespaceOf].map(([name, ns]) => [name, ns.uri]) };
}

/** The NUL-terminated UTF-8 string at a libxml2 address, decoded here without the engine's help. */
function stringAt(pointer: number): string {
  const bytes = heapBytes() as Uint8Array;
  return new TextDecoder().decode(bytes.subarray(pointer, bytes.indexOf(0, pointer)));
}

/** Every field the walk and the shape read, for every node and attribute, in document order. */
function fieldsOfEveryNode(docPtr: number, fields: NodeFields): number[][] {
  const seen: number[][] = [];
  walk(
    docPtr,
    (node, type) => {
      const row = [
        node,
        type,
        fields.type(node),
        fields.children(node),
        fields.parent(node),
        fields.next(node),
      ];
      if (type === NodeType.XML_ELEMENT_NODE) {
        row.push(fields.name(node), fields.ns(node), fields.properties(node));
        for (let attr = fields.properties(node); attr !== 0; attr = fields.next(attr)) {
          seen.push([attr, fields.type(attr), fields.name(attr), fields.ns(attr), fields.parent(attr)]);
        }
      } else if (type === NodeType.XML_TEXT_NODE || type === NodeType.XML_CDATA_SECTION_NODE) {
        row.push(fields.content(node));
      }
      seen.push(row);
    },
    fields,
  );
  return seen;
}

describe('node fields read from the WebAssembly memory', () => {
  it('are read from the memory in the tests, not through the accessors', () => {
    expect(nodeFields()).not.toBe(accessorFields);
  });

  it.each(DOCUMENTS)('read what the accessors read on every node: %s', (_label, xml, purpose) => {
    const doc = parseDocument(xml, purpose);
    try {
      const fast = fieldsOfEveryNode(documentPointer(doc), nodeFields());
      const plain = fieldsOfEveryNode(documentPointer(doc), accessorFields);
      expect(fast.length).toBeGreaterThan(2);
      expect(fast).toEqual(plain);
      // `name` and `content` have no pointer accessor in the wrapper: their strings are checked.
      walk(documentPointer(doc), (node, type) => {
        const fields = nodeFields();
        if (type === NodeType.XML_ELEMENT_NODE) {
          expect(stringAt(fields.name(node))).toBe(localName(node));
          for (let attr = fields.properties(node); attr !== 0; attr = fields.next(attr)) {
            expect(stringAt(fields.name(attr))).toBe(localName(attr));
          }
        } else if (type === NodeType.XML_TEXT_NODE || type === NodeType.XML_CDATA_SECTION_NODE) {
          expect(stringAt(fields.content(node))).toBe(stringValue(node));
        }
      });
    } finally {
      doc.dispose();
    }
  });

  it.each(DOCUMENTS)('give the shape the accessors give: %s', (_label, xml, purpose) => {
    const doc = parseDocument(xml, purpose);
    try {
      const fast = documentShape(doc, nodeFields());
      expect(fast.totalElements).toBeGreaterThan(0);
      expect(flat(fast)).toEqual(flat(documentShape(doc, accessorFields)));
    } finally {
      doc.dispose();
    }
  });

  it('find the names as written, prefixes and non-ASCII included', () => {
    const doc = parseDocument(DOCUMENTS[6]?.[1] as string, 'query');
    try {
      expect(documentShape(doc).names).toEqual(['Ωμέγα', '名前', 'ü:straße', 'café', '数据', '𐐀𐐁', 'ʃ']);
    } finally {
      doc.dispose();
    }
  });
});
