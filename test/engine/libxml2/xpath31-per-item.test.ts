import type { XmlDocument } from 'libxml2-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentPointer, stringValue } from '../../../src/engine/libxml2/tree.js';
import { planPaths } from '../../../src/engine/libxml2/xpath31-paths.js';
import { evaluateXPath31Counted, Xpath31View } from '../../../src/engine/libxml2/xpath31-view.js';
import { parseDocument } from '../../../src/engine/parse.js';

/* Per-item computations after a selected path, read from libxml2's structs (ADR 0055, addendum). */

const NS = { x: 'urn:x' };
const SELECTED = 'Q{urn:oxml-mcp:xpath31-selected}';
const rewritten = (expression: string) => planPaths(expression, NS)?.expression;

describe('planPaths: per-item computations', () => {
  it('takes the shapes models write after a selected path, typed as XPath 3.1 types them', () => {
    expect(planPaths('sum(//record ! number(price))', NS)).toEqual({
      expression: `sum(${SELECTED}per-item-double(1))`,
      paths: [{ path: '//record', guards: [], textsOnly: false, pointersOnly: true }],
      perItem: [
        { path: 1, expression: { kind: 'number', path: [{ attribute: false, uri: null, local: 'price' }] } },
      ],
    });
    expect(rewritten('//item ! xs:decimal(@amount)')).toBe(`${SELECTED}per-item-decimal(1)`);
    expect(rewritten('sum(//line ! (qty * price))')).toBe(`sum(${SELECTED}per-item-double(1))`);
    expect(rewritten('//x:class ! count(x:method)')).toBe(`${SELECTED}per-item-integer(1)`);
    // `/` keeps numbers in order as `!` does.
    expect(rewritten('sum(//r/number(p))')).toBe(`sum(${SELECTED}per-item-double(1))`);
    expect(rewritten('//r ! (count(a) + count(b) * 2)')).toBe(`${SELECTED}per-item-integer(1)`);
    expect(rewritten('//r ! (xs:decimal(a) * 1.5 - 1)')).toBe(`${SELECTED}per-item-decimal(1)`);
    expect(rewritten('//r ! (a/b div 2)')).toBe(`${SELECTED}per-item-double(1)`);
    expect(rewritten('//r/@v ! number()')).toBe(`${SELECTED}per-item-double(1)`);
    // `!` is left-associative and binds tighter than `=>`: the computation is its whole operand.
    expect(rewritten('//r ! number(p) ! string(.)')).toBe(`${SELECTED}per-item-double(1) ! string(.)`);
    expect(rewritten('//r ! number(p) => sum()')).toBe(`${SELECTED}per-item-double(1) => sum()`);
    // A `for` whose body reads only its variable's paths: the same values as `!`.
    expect(rewritten('sum(for $r in //r return number($r/p))')).toBe(`sum(${SELECTED}per-item-double(1))`);
    expect(rewritten('sum(for $l in //line return $l/qty * $l/price), 1')).toBe(
      `sum(${SELECTED}per-item-double(1)), 1`,
    );
    expect(rewritten('for $a in //r/@v return xs:decimal($a)')).toBe(`${SELECTED}per-item-decimal(1)`);
  });

  it('hands fontoxpath a path it also reads elsewhere, and leaves anything else as it was', () => {
    const both = planPaths('count(//r) + sum(//r ! number(p))', NS);
    expect(both?.paths).toEqual([{ path: '//r', guards: [], textsOnly: false }]);
    // Read as distinct texts too: selected as nodes, which the computation reads as pointers.
    expect(planPaths('distinct-values(//r/@v), sum(//r/@v ! number(.))', NS)?.paths).toEqual([
      { path: '//r/@v', guards: [], textsOnly: false },
    ]);
    for (const [expression, path] of [
      ['//r ! string(p)', '//r'],
      ['//r ! number(p)[1]', '//r'],
      ['//r ! number(p)/q', '//r'],
      ['//r ! number(p[1])', '//r'],
      ['//r ! number(*)', '//r'],
      ['//r ! number(y:p)', '//r'],
      ['//r ! number(p, q)', '//r'],
      ['//r ! (p)', '//r'],
      ['//r ! (count(a) div 2)', '//r'],
      ['//r ! (count(a) * 99999999999999999999)', '//r'],
      ['//r ! (-p)', '//r'],
      ['//r ! number(..)', '//r'],
      ['//r ! number(child::p)', '//r'],
      ['//r//number(p)', '//r'],
      // A `for` body that reads the context item, another variable, or goes on past the `for`.
      ['for $r in //r return number(p)', '//r'],
      ['for $r in //r return number()', '//r'],
      ['for $r in //r return number($s/p)', '//r'],
      ['for $r in //r return $r/p', '//r'],
      ['for $r in //r return number($r/p) else 1', '//r'],
      ['for $r in //r, $s in //s return number($r/p)', '//r'],
    ] as const) {
      expect(planPaths(expression, NS)?.perItem, expression).toBeUndefined();
      expect(planPaths(expression, NS)?.paths[0], expression).toEqual({ path, guards: [], textsOnly: false });
    }
    // A prefix bound to another namespace than the functions', or a prolog that may rebind one.
    expect(planPaths('//r ! xs:double(p)', { xs: 'urn:other' })?.perItem).toBeUndefined();
    expect(
      planPaths('declare default function namespace "urn:f"; //r ! number(p)', NS)?.perItem,
    ).toBeUndefined();
  });
});

const XML = `<d xmlns:x="urn:x">
  <r v="1.5"><p> 12.5
</p><q>2</q><n>  7 </n><x:m>1</x:m><x:m>2</x:m><m>3</m></r>
  <r v=" +3 "><p>+1.</p><q>.5</q><n>1e3</n><a><b>4</b></a><a><b>5</b><b>6</b></a></r>
  <r v="-0"><p>1<i>2</i><!-- c -->3<![CDATA[4]]></p><q>-0</q><n>00012</n></r>
  <r><q>3</q><n>0.000001</n></r>
</d>`;

describe('evaluateXPath31Counted: per-item values from the structs', () => {
  let doc: XmlDocument;
  const documents: XmlDocument[] = [];
  beforeAll(() => {
    doc = parseDocument(XML, 'query');
  });
  afterAll(() => {
    doc.dispose();
    for (const other of documents) other.dispose();
  });

  const parsed = (xml: string) => {
    const parsedDoc = parseDocument(xml, 'query');
    documents.push(parsedDoc);
    return parsedDoc;
  };
  const both = (source: XmlDocument, expression: string) => {
    const run = (selectPaths: boolean) => {
      const view = new Xpath31View(documentPointer(source));
      try {
        const answer = evaluateXPath31Counted(documentPointer(source), expression, NS, { view, selectPaths });
        const items = answer.items.map((item) =>
          item.kind === 'node' ? `node ${stringValue(item.node)}` : JSON.stringify(item),
        );
        return { answer: { ...answer, items }, wrappers: view.size };
      } catch (error) {
        return { error: (error as Error).message.split('\n')[0], wrappers: view.size };
      }
    };
    return { computed: run(true), walked: run(false) };
  };
  /** Each expression answered alike both ways; what the computed runs gave, for more checks. */
  const alike = (source: XmlDocument, expressions: string[]) =>
    expressions.map((expression) => {
      const { computed, walked } = both(source, expression);
      expect(computed.answer, expression).toEqual(walked.answer);
      return { expression, computed, walked };
    });

  it('answers as fontoxpath alone does, with no wrapper for the selected nodes or their children', () => {
    const runs = alike(doc, [
      '//r ! number(p)',
      'sum(//r ! number(q))',
      '//r ! xs:double(n)',
      '//r ! xs:decimal(q)',
      '//r ! (q * n)',
      '//r ! (q + 1.5) ! string(.)',
      '//r ! (xs:decimal(q) * 3 - 1) ! string(.)',
      '//r ! (count(x:m) * 10 + count(m))',
      '//r ! count(a/b)',
      '//r/@v ! number(.)',
      '//r ! xs:double(@v)',
      '//r/number(q)',
      '//r ! (n div q)',
      'avg(//r ! xs:double(q)) => string()',
      'for $r in //r return number($r/p)',
      'sum(for $r in //r return $r/q * $r/n)',
      'for $v in //r/@v return xs:double($v)',
    ]);
    for (const { expression, computed, walked } of runs) {
      // The document node's wrapper only: the selection and the children are read as structs.
      expect(computed.wrappers, expression).toBe(1);
      expect(walked.wrappers, expression).toBeGreaterThan(4);
    }
    alike(doc, ['distinct-values(//r/@v), sum(//r/@v ! number(.))', 'count(//r) + sum(//r ! count(m))']);
    // Inside a predicate: asked again for each context node, computed once.
    const [inPredicate] = alike(doc, ['//r[number(q) = max(//r ! number(q))]/n ! string()']);
    expect(inPredicate?.computed.answer?.items).toEqual([
      '{"kind":"atomic","type":"xs:string","text":"0.000001"}',
    ]);
    expect(both(doc, '//r ! number(p)').computed.answer?.items.map((item) => JSON.parse(item).text)).toEqual([
      '12.5',
      '1',
      '1234',
      'NaN',
    ]);
  });

  it('evaluates as written where XPath 3.1 raises an error or reads a value its own way', () => {
    const odd = parsed(
      '<d><r><p>1</p><p>2</p><s>INF</s><t>n/a</t><u>1e3</u><v>\u00a01</v></r><r><p>3</p><s>-INF</s><t>NaN</t><u>1</u><v>2</v></r></d>',
    );
    for (const [expression, outcome] of [
      // Two nodes where one is allowed: XPTY0004.
      ['//r ! number(p)', 'error'],
      ['sum(//r ! (p * 2))', 'error'],
      // INF and NaN are numbers to xs:double.
      ['//r ! number(s) ! string(.)', 'answer'],
      ['//r[2] ! xs:double(t) ! string(.)', 'answer'],
      // Not a number: NaN for number(), FORG0001 for a cast or an untyped operand.
      ['//r ! number(t) ! string(.)', 'answer'],
      ['//r ! xs:double(v)', 'error'],
      ['//r ! xs:decimal(u)', 'error'],
      ['//r ! (u + 1)', 'answer'],
      ['//r ! (v + 1)', 'error'],
      // An integer past 2^53.
      ['//r ! (count(p) * 4503599627370496 * 4) ! string(.)', 'answer'],
    ] as const) {
      const { computed, walked } = both(odd, expression);
      expect({ ...computed, wrappers: 0 }, expression).toEqual({ ...walked, wrappers: 0 });
      expect(outcome === 'error' ? computed.error : computed.answer, expression).toBeDefined();
    }
    expect(both(odd, '//r ! number(p)').computed.error).toMatch(/^XPTY0004/);
    expect(both(odd, '//r ! xs:double(v)').computed.error).toMatch(/^FORG0001/);
  });

  it('reads an attribute whose value holds an entity reference, and elements in a namespace', () => {
    const entities = parsed(
      '<!DOCTYPE d [<!ENTITY two "2">]><d xmlns:x="urn:x" xmlns:y="urn:y"><r a="1&two;"><x:p>5</x:p><y:p>6</y:p></r></d>',
    );
    const runs = alike(entities, [
      '//r ! number(@a)',
      '//r ! number(x:p)',
      '//r ! count(*:p)',
      '//r ! (x:p * @a)',
    ]);
    expect(runs.map(({ computed }) => computed.answer?.items.map((item) => JSON.parse(item).text))).toEqual([
      ['12'],
      ['5'],
      ['2'],
      ['60'],
    ]);
  });
});
