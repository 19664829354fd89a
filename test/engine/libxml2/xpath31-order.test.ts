import type { XmlDocument } from 'libxml2-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentPointer } from '../../../src/engine/libxml2/tree.js';
import {
  evaluateXPath31,
  type LxNode,
  type Xpath31Item,
  Xpath31View,
} from '../../../src/engine/libxml2/xpath31-view.js';
import { parseDocument } from '../../../src/engine/parse.js';
import { seededRandom } from '../../support/seeded-random.js';

/** The view without its document-order index: fontoxpath then compares as it does unpatched. */
class UnpatchedView extends Xpath31View {
  override compareDocumentOrder(): number | undefined {
    return undefined;
  }
}

const NAMES = ['a', 'b', 'c', 'x', 'p:c', 'p:x', 'q:b'];
const ATTRIBUTES = ['id', 'k', 'z', 'p:k', 'q:id', 'a'];

/** Elements of several levels, namespaced and not, with attributes, text, CDATA, comments, PIs. */
function mixedDocument(seed: number, elements: number): string {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  let left = elements;
  const element = (depth: number): string => {
    left--;
    const name = pick(NAMES);
    const attributes = [...new Set(Array.from({ length: Math.floor(random() * 4) }, () => pick(ATTRIBUTES)))]
      .map((attribute, i) => ` ${attribute}="${i}${Math.floor(random() * 9)}"`)
      .join('');
    const declared = random() < 0.03 ? ' xmlns="urn:default"' : '';
    let content = '';
    const parts = depth > 5 ? 0 : Math.floor(random() * 6);
    for (let i = 0; i < parts && left > 0; i++) {
      const kind = random();
      if (kind < 0.55) content += element(depth + 1);
      else if (kind < 0.75) content += `t${Math.floor(random() * 99)}`;
      else if (kind < 0.83) content += '<!--c-->';
      else if (kind < 0.9) content += '<?pi d?>';
      else if (kind < 0.95) content += '<![CDATA[<d>]]>';
      else content += ' ';
    }
    return `<${name}${declared}${attributes}>${content}</${name}>`;
  };
  let body = '';
  while (left > 0) body += element(1);
  return `<?xml version="1.0"?><!--top--><?top x?><root xmlns:p="urn:p" xmlns:q="urn:q" id="r">${body}</root><!--end-->`;
}

const EXPRESSIONS = [
  '//b/c',
  '//@*',
  '(//c | //a)',
  '//node()',
  'reverse(//x)/..',
  '//p:c | //c | //q:b',
  '//c/preceding::*',
  '//x/ancestor::node()',
  '//x/following-sibling::node()',
  '(//c, //a)',
  '//*[@id]/(@* | node())',
  '//comment() | //processing-instruction() | //text()',
  '//@k/.. | //@id',
  '(//c)[last()]/preceding::node()[3]',
  '//*/@*[1]/../*',
  '//a intersect //node()[@k]',
  '//node() except //text()',
  '/descendant-or-self::node()/(. | @*)',
];
const NS = { p: 'urn:p', q: 'urn:q', d: 'urn:default' };

const pointers = (items: Xpath31Item[]) =>
  items.map((item) => (item.kind === 'node' ? `${item.nodeType}@${item.node}` : JSON.stringify(item)));

describe('Xpath31View.compareDocumentOrder', () => {
  const docs: XmlDocument[] = [];
  const parse = (xml: string) => {
    const doc = parseDocument(xml, 'query');
    docs.push(doc);
    return doc;
  };
  afterAll(() => {
    for (const doc of docs) doc.dispose();
  });

  it('is what fontoxpath uses here: vitest loads it patched (scripts/fontoxpath-patches.ts)', () => {
    const doc = parse('<r><a/><b/><a/></r>');
    const view = new Xpath31View(documentPointer(doc));
    expect(view.orderedNodes).toBe(0);
    expect(evaluateXPath31(documentPointer(doc), '(//b | //a)', {}, { view })).toHaveLength(3);
    expect(view.orderedNodes).toBe(5);
  });

  it('gives exactly the order fontoxpath gives unpatched, on varied documents', () => {
    const found = new Map<string, number>();
    for (const seed of [1, 2, 3, 4]) {
      const doc = parse(mixedDocument(seed, 300));
      const ptr = documentPointer(doc);
      const view = new Xpath31View(ptr);
      const unpatched = new UnpatchedView(ptr);
      for (const expression of EXPRESSIONS) {
        const patched = pointers(evaluateXPath31(ptr, expression, NS, { view }));
        const original = pointers(evaluateXPath31(ptr, expression, NS, { view: unpatched }));
        expect(patched, `${expression} (seed ${seed})`).toEqual(original);
        found.set(expression, (found.get(expression) ?? 0) + original.length);
      }
      expect(view.orderedNodes).toBeGreaterThan(100);
      expect(unpatched.orderedNodes).toBe(0);
    }
    for (const expression of EXPRESSIONS) expect(found.get(expression), expression).toBeGreaterThan(3);
  });

  it('orders every pair of nodes as a recursive pre-order walk of the facade does', () => {
    const doc = parse(mixedDocument(7, 80));
    const view = new Xpath31View(documentPointer(doc));
    const walked: LxNode[] = [];
    const visit = (node: LxNode) => {
      walked.push(node);
      walked.push(...view.getAllAttributes(node));
      for (const child of view.getChildNodes(node)) visit(child);
    };
    visit(view.document);
    expect(walked.length).toBeGreaterThan(200);
    for (let i = 0; i < walked.length; i++) {
      for (let j = 0; j < walked.length; j += 7) {
        const order = view.compareDocumentOrder(walked[i] as LxNode, walked[j] as LxNode) as number;
        expect(Math.sign(order), `${i} ${j}`).toBe(Math.sign(i - j));
      }
    }
    expect(view.orderedNodes).toBe(walked.length);
  });

  it('answers undefined for a node of another view, so fontoxpath compares as before', () => {
    const doc = parse('<r><a/></r>');
    const one = new Xpath31View(documentPointer(doc));
    const other = new Xpath31View(documentPointer(doc));
    const a = one.getFirstChild(one.document) as LxNode;
    expect(one.compareDocumentOrder(one.document, a)).toBeLessThan(0);
    expect(one.compareDocumentOrder(a, one.document)).toBeGreaterThan(0);
    expect(one.compareDocumentOrder(a, a)).toBe(0);
    expect(one.compareDocumentOrder(a, other.document)).toBeUndefined();
  });
});

describe('the view over a large flat document', () => {
  let doc: XmlDocument;
  beforeAll(() => {
    const records = Array.from({ length: 5000 }, (_, i) => `<r k="${i % 7}"><v>${i}</v></r>`).join('\n');
    doc = parseDocument(`<all>${records}</all>`, 'query');
  });
  afterAll(() => doc.dispose());

  it('sorts thousands of siblings without the quadratic scan', () => {
    const run = (expression: string) => evaluateXPath31(documentPointer(doc), expression, {});
    expect(run('sum(//r/v)')).toEqual([{ kind: 'atomic', type: 'xs:double', text: '1.24975E7' }]);
    expect(run('count(distinct-values(//r/@k))')).toEqual([
      { kind: 'atomic', type: 'xs:integer', text: '7' },
    ]);
  });
});
