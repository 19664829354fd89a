import type { XmlDocument } from 'libxml2-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentPointer, localName, NodeType, stringValue } from '../../../src/engine/libxml2/tree.js';
import { evaluateXPath31, type Xpath31Item, Xpath31View } from '../../../src/engine/libxml2/xpath31-view.js';
import { parseDocument } from '../../../src/engine/parse.js';

const XML = `<?xml version="1.0"?>
<!DOCTYPE feed [<!ENTITY co "ACME &amp; Co"><!ATTLIST item kind CDATA "plain">]>
<feed xmlns="urn:feed" xmlns:x="urn:x" xml:lang="en">
  <item id="2" x:code="b">text &co; <![CDATA[<raw> & ]]>tail<?pi data?><!--c--></item>
  <item id="1" xml:lang="fr-CA"><x:price>12.50</x:price></item>
</feed>`;
const NS = { f: 'urn:feed', p: 'urn:x' };

describe('evaluateXPath31 (fontoxpath over libxml2 pointers)', () => {
  let doc: XmlDocument;
  let view: Xpath31View;
  beforeAll(() => {
    doc = parseDocument(XML, 'query');
    view = new Xpath31View(documentPointer(doc));
  });
  afterAll(() => doc.dispose());

  const run = (expression: string, language?: 'xquery') =>
    evaluateXPath31(documentPointer(doc), expression, NS, { view, language });
  const nodes = (items: Xpath31Item[]) =>
    items.map((item) => {
      if (item.kind !== 'node') throw new Error(`not a node: ${JSON.stringify(item)}`);
      return `${localName(item.node)}=${stringValue(item.node)}`;
    });
  const atomics = (items: Xpath31Item[]) =>
    items.map((item) => (item.kind === 'atomic' ? `${item.type} ${item.text}` : item.kind));

  it('binds prefixes only from the namespaces given; an unprefixed name is in no namespace', () => {
    expect(atomics(run('count(//item)'))).toEqual(['xs:integer 0']);
    expect(atomics(run('count(//f:item)'))).toEqual(['xs:integer 2']);
    expect(nodes(run('//p:price'))).toEqual(['price=12.50']);
    expect(() => run('//x:price')).toThrow(/XPST0081/);
  });

  it('sees entities expanded, CDATA merged into one text node, defaulted attributes and xml:lang', () => {
    expect(nodes(run('//f:item[1]/text()'))).toEqual(['text=text ACME & Co <raw> & tail']);
    expect(nodes(run('//f:item[2]/@kind'))).toEqual(['kind=plain']);
    expect(nodes(run('//f:item[lang("fr")]/@id'))).toEqual(['id=1']);
    expect(nodes(run('/*/@xml:lang'))).toEqual(['lang=en']);
  });

  it('returns libxml2 pointers for nodes of every kind, paths in document order', () => {
    const [pi, comment, attribute] = run(
      '(//processing-instruction(), //comment(), //@x:code)'.replace('x:', 'p:'),
    );
    expect(pi).toMatchObject({ kind: 'node', nodeType: NodeType.XML_PI_NODE });
    expect(comment).toMatchObject({ kind: 'node', nodeType: NodeType.XML_COMMENT_NODE });
    expect(attribute).toMatchObject({ kind: 'node', nodeType: NodeType.XML_ATTRIBUTE_NODE });
    expect(nodes(run('(//f:item[2] | //f:item[1])/@id'))).toEqual(['id=2', 'id=1']);
    expect(nodes(run('(//f:item[2], //f:item[1])/@id'))).toEqual(['id=2', 'id=1']);
    expect(nodes(run('reverse(//f:item) ! @id'))).toEqual(['id=1', 'id=2']);
  });

  it('types atomic values and writes them as XPath 3.1 string() does', () => {
    expect(atomics(run('(1 + 2, 1.5 * 2, 1e0 * 3, xs:double(1e21), 1e-7, "a" || 1, true())'))).toEqual([
      'xs:integer 3',
      'xs:decimal 3',
      'xs:double 3',
      'xs:double 1.0E21',
      'xs:double 1.0E-7',
      'xs:string a1',
      'xs:boolean true',
    ]);
    expect(atomics(run('(xs:double(1000000), 12345678.9e0, -1.5e-7, 1e0 div 0, 0e0 div 0)'))).toEqual([
      'xs:double 1.0E6',
      'xs:double 1.23456789E7',
      'xs:double -1.5E-7',
      'xs:double INF',
      'xs:double NaN',
    ]);
    expect(atomics(run('xs:dateTime("2024-01-31T10:00:00Z") - xs:dateTime("2024-01-30T09:30:00Z")'))).toEqual(
      ['xs:dayTimeDuration P1DT30M'],
    );
    expect(atomics(run('xs:date("2024-01-31")'))).toEqual(['xs:date 2024-01-31']);
    expect(run('map{"a": 1}')).toEqual([{ kind: 'map', value: { a: 1 } }]);
    expect(run('[1, "x"]')).toEqual([{ kind: 'array', value: [1, 'x'] }]);
  });

  it('finds positions with index-of, taking values XPath cannot compare as unequal', () => {
    expect(atomics(run('index-of((1, "a", 2.0, "b", 2e0, 3), 2)'))).toEqual(['xs:integer 3', 'xs:integer 5']);
    expect(atomics(run('index-of(//f:item/@id ! string(.), "1")'))).toEqual(['xs:integer 2']);
    expect(atomics(run('index-of((xs:date("2024-01-31"), "2024-01-31"), "2024-01-31")'))).toEqual([
      'xs:integer 2',
    ]);
    expect(run('index-of((), 1)')).toEqual([]);
  });

  it('runs XQuery FLWOR with order by', () => {
    const items = run('for $i in //f:item order by number($i/@id) return string($i/@id)', 'xquery');
    expect(atomics(items)).toEqual(['xs:string 1', 'xs:string 2']);
  });

  it('reports W3C error codes, with a position for syntax errors in the expression as written', () => {
    let caught: unknown;
    try {
      run('//f:item[');
    } catch (error) {
      caught = error;
    }
    expect((caught as Error).message).toMatch(/XPST0003/);
    expect((caught as Error).message).toMatch(/1: \/\/f:item\[/);
    expect((caught as { position?: unknown }).position).toBeDefined();
    expect(() => run('"a" + 1')).toThrow(/XPTY0004/);
    expect(() => run("format-date(xs:date('2024-01-31'), '[D]')")).toThrow(/XPST0017/);
    expect(() => run("format-number(1, '0.0.0')")).toThrow(/FODF1310/);
  });

  it("atomizes an element from libxml2's structs as fontoxpath's own walk does", () => {
    // The facade fontoxpath's patched atomization asks (ADR 0055, addendum), and one that
    // declines, so fontoxpath walks the wrappers as it did before.
    class Walked extends Xpath31View {
      override stringValueOf(): undefined {
        return undefined;
      }
    }
    const mixed = parseDocument(
      '<a>one<b>two<!--no--><c>three</c><?pi no?></b><![CDATA[<four>]]><d/>five</a>',
      'query',
    );
    try {
      const ask = (expression: string, facade: Xpath31View) =>
        atomics(
          evaluateXPath31(documentPointer(mixed), expression, {}, { view: facade, selectPaths: false }),
        );
      const questions = [
        'string(/a)',
        'data(/)',
        '/a/b ! string()',
        'data(//d)',
        'string-length(/)',
        '/a/b = "twothree"',
      ];
      for (const question of questions) {
        const direct = ask(question, new Xpath31View(documentPointer(mixed)));
        expect(direct, question).toEqual(ask(question, new Walked(documentPointer(mixed))));
      }
      // The patch is in place: fontoxpath asked the facade, and took its answer.
      class Counted extends Xpath31View {
        asked = 0;
        override stringValueOf(node: Parameters<Xpath31View['stringValueOf']>[0]): string | undefined {
          this.asked++;
          return super.stringValueOf(node);
        }
      }
      const counted = new Counted(documentPointer(mixed));
      expect(ask('string(/a)', counted)).toEqual(['xs:string onetwothree<four>five']);
      expect(counted.asked).toBe(1);
    } finally {
      mixed.dispose();
    }
  });

  it('wraps only the nodes a step by name takes, not the whitespace and names it passes', () => {
    const fresh = new Xpath31View(documentPointer(doc));
    evaluateXPath31(documentPointer(doc), '/f:feed/f:item/p:price', NS, { view: fresh, selectPaths: false });
    // The document, feed, both items and the price: no text node, no PI or comment.
    expect(fresh.size).toBe(5);
  });

  it('answers on a view made per call too', () => {
    expect(atomics(evaluateXPath31(documentPointer(doc), 'count(//p:*)', NS))).toEqual(['xs:integer 1']);
  });
});
