import { readFileSync } from 'node:fs';
import type { XmlDocument } from 'libxml2-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { armStackGuard } from '../../../src/engine/libxml2/stack-guard.js';
import { documentPointer, type NodeRef } from '../../../src/engine/libxml2/tree.js';
import { evaluateXPathAtNodes } from '../../../src/engine/libxml2/xpath.js';
import { evaluateXPath31Plain, Xpath31View } from '../../../src/engine/libxml2/xpath31-view.js';
import { parseDocument } from '../../../src/engine/parse.js';
import { xpath1Values } from '../../../src/engine/validate/schematron/xpath1-routed.js';
import { xpath1Test } from '../../../src/engine/validate/schematron/xpath1-tests.js';
import { validate } from '../../../src/engine/validate/validate.js';
import { engineError } from '../engine-error.js';

/* The tests of an XPath 3.1 rule that libxml2 evaluates as XPath 1.0 (ADR 0053, Addendum 2). */

const NS = { x: 'urn:x' };
const SCH = 'http://purl.oclc.org/dsdl/schematron';

describe('xpath1Test: which tests XPath 1.0 answers alike', () => {
  it('takes paths, literals, comparisons, and/or, and the functions both define alike, in XPath 1.0 words', () => {
    expect(xpath1Test('exists(x:a/@b) or empty(x:c) and fn:not(x:d)', NS)).toEqual({
      expression: 'boolean(x:a/@b) or not(x:c) and not(x:d)',
      guards: [],
      documentGuards: [],
      absolute: false,
    });
    expect(xpath1Test("(x:a | x:b)/x:c[1] = 'v' and count(../x:a) <= 1", NS)?.expression).toBe(
      "(x:a | x:b)/x:c[1] = 'v' and count(../x:a) <= 1",
    );
    expect(xpath1Test("not(//x:a[child::x:b = 'c'])", NS)?.absolute).toBe(true);
  });

  it('writes ends-with, which XPath 1.0 lacks, with substring and string-length', () => {
    expect(xpath1Test("//*[ends-with(name(), 'Amount')]", NS)?.expression).toBe(
      "//*[(substring(name(), string-length(name()) - string-length('Amount') + 1) = 'Amount')]",
    );
  });

  it('reads nodes compared with true() or false() by their text, as XPath 3.1 casts it', () => {
    expect(xpath1Test('x:flag != false()', NS)).toMatchObject({
      expression: "boolean((x:flag)[normalize-space(.) = 'true' or normalize-space(.) = '1'])",
      guards: [
        "(x:flag)[not(normalize-space(.) = 'true' or normalize-space(.) = '1' or normalize-space(.) = 'false' or normalize-space(.) = '0')]",
      ],
    });
  });

  it('writes a path ending in a function compared with a literal as a predicate, and guards inside predicates on the whole document', () => {
    expect(xpath1Test("x:tax[x:s/normalize-space(upper-case(x:id)) = 'VAT']", NS)).toMatchObject({
      expression:
        "x:tax[boolean(x:s[normalize-space(translate(x:id, 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')) = 'VAT'])]",
      guards: [],
      documentGuards: [
        '//x:s[count(x:id) > 1]',
        expect.stringMatching(/^\/\/x:s\[\(x:id\)\[translate\(translate\(\., "'", ''\), '/),
      ],
    });
  });

  it('guards a string argument that may be several nodes, and nodes compared with a number', () => {
    expect(xpath1Test("normalize-space(x:id) != '' and x:p > 0", NS)?.guards).toEqual([
      'count(x:id) > 1',
      '(x:p)[number(.) != number(.)]',
    ]);
  });

  it.each([
    ['a variable', 'x:a = $v'],
    ['a prefix the schema does not bind', 'y:a'],
    ['arithmetic', 'x:a + 1 = 2'],
    ['a cast', 'xs:decimal(x:a) = 1'],
    ['a function XPath 1.0 lacks, or defines otherwise', 'matches(x:a, "A")'],
    ['a function step not compared with a literal', 'x:a/string()'],
    ['upper-case of a text not read from nodes', "upper-case(normalize-space(x:a)) = 'A'"],
    ['an ordered comparison of texts (by number in XPath 1.0)', "x:a < 'b'"],
    ['a boolean compared with a number (made boolean in XPath 1.0)', 'count(x:a) = true()'],
    ['a string where a number is compared', "string-length(x:a) = '2'"],
    ['a number where a string is wanted', 'contains(1, x:a)'],
    ['a guard needed in a predicate of nodes whose name is not known', '(x:a | x:b)[x:c > 1]'],
    ['some/every', 'every $a in x:a satisfies $a'],
    ['current()', 'x:a = current()/@b'],
    ['a comment', 'x:a (: a comment :)'],
    ['more operators than libxml2 is given', Array.from({ length: 66 }, () => 'x:a').join(' or ')],
    ['deeper brackets than libxml2 is given', `${'not('.repeat(25)}x:a${')'.repeat(25)}`],
  ])('refuses %s', (_, test) => {
    expect(xpath1Test(test, NS)).toBeNull();
  });
});

describe('libxml2 and fontoxpath answer the tests taken alike', () => {
  const DOC = `<r xmlns="urn:x">
    <line id="1" qty="2"><name> A  b </name><price>3.50</price><note>n</note><note>m</note><flag>true</flag></line>
    <line id="2" qty="0"><name/><price>-1</price><tax><id>s</id></tax><flag> 0 </flag></line>
    <line id="3"><name>ü</name><price>10</price><tax><id>Z</id></tax><tax><id>S</id></tax></line>
    <other id="2"/>
  </r>`;
  let doc: XmlDocument;
  let view: Xpath31View;
  let lines: NodeRef[];
  beforeAll(() => {
    doc = parseDocument(DOC, 'query');
    view = new Xpath31View(documentPointer(doc));
    lines = evaluateXPath31Plain(view, '//x:line', NS).map((item) => (item as { node: NodeRef }).node);
  });
  afterAll(() => doc.dispose());

  it.each([
    'exists(x:note) and count(x:note) <= 1',
    "normalize-space(x:name) != ''",
    'string-length(normalize-space(x:name)) = 3',
    "contains(concat(' ', x:name, ' '), ' A ')",
    "substring-after(x:price, '.') = '50'",
    'x:price >= 0',
    '@qty > 0 or not(@qty)',
    "x:tax/x:id = 'S'",
    "x:tax/x:id != 'S'",
    '@id = ../x:other/@id',
    "(x:note | x:name)[1] = ' A  b '",
    "not(//x:line[@qty = '0'])",
    "translate(x:name, 'ü', 'u') = 'u'",
    "ends-with(x:price, '0') and not(ends-with(x:name, ''))",
    "x:tax[ends-with(name(), 'tax') and local-name() = 'tax']",
    "ends-with(x:name, 'ü')",
    'x:flag = true()',
    'x:flag != true()',
    "x:tax/upper-case(x:id) = 'S'",
    "x:tax[normalize-space(lower-case(x:id)) = 's']",
    "x:tax/normalize-space(x:id) != 'Z'",
    "'S' = x:tax/x:id/upper-case(.)",
  ])('%s', (test) => {
    const form = xpath1Test(test, NS);
    expect(form).not.toBeNull();
    const fontoxpath = evaluateXPath31Plain(view, `$oxml-nodes?* ! boolean(${test})`, NS, {
      'oxml-nodes': lines,
    });
    const libxml2 = evaluateXPathAtNodes(
      documentPointer(doc),
      `boolean(${form?.expression})`,
      NS,
      1_000_000,
      lines,
      (value) => value.type === 'boolean' && value.value,
    );
    expect(libxml2).toEqual(fontoxpath);
  });

  it('answers every test of a rule in one string per node, and nothing where a guard finds a difference', () => {
    const forms = ["normalize-space(x:name) != ''", 'x:price >= 0'].map((test) => xpath1Test(test, NS));
    expect(xpath1Values(documentPointer(doc), forms as NonNullable<(typeof forms)[0]>[], lines, NS)).toEqual([
      [true, true],
      [false, false],
      [true, true],
    ]);
    const price = xpath1Test('x:price >= 0', NS) as NonNullable<ReturnType<typeof xpath1Test>>;
    expect(xpath1Values(documentPointer(doc), [price], lines, NS)).toEqual([[true], [false], [true]]);
    // `x:note` is two nodes on the first line: XPath 3.1's type error, so fontoxpath must answer.
    const several = xpath1Test("normalize-space(x:note) != ''", NS);
    expect(several).not.toBeNull();
    expect(
      xpath1Values(documentPointer(doc), [several as NonNullable<typeof several>], lines, NS),
    ).toBeNull();
  });
});

describe('a rule whose tests libxml2 takes, through validate', () => {
  const rules = (test: string) =>
    `<schema xmlns="${SCH}" queryBinding="xslt2"><pattern><rule context="item"><assert id="A" test="${test}">m</assert></rule></pattern></schema>`;

  it('keeps XPath 3.1 errors where XPath 1.0 would have answered: several nodes for one string, a text for a number', () => {
    expect(
      engineError(() =>
        validate('<r><item><id>1</id><id>2</id></item></r>', rules("normalize-space(id) != ''")),
      ).message,
    ).toMatch(/XPTY0004/);
    expect(engineError(() => validate('<r><item qty="n/a"/></r>', rules('@qty &gt; 0'))).message).toMatch(
      /FORG0001/,
    );
  });

  it('answers as XPath 3.1 where a document guard finds a text translate() would read otherwise', () => {
    const upper = `<schema xmlns="${SCH}" queryBinding="xslt2"><pattern><rule context="item[upper-case(@k) = 'SS']">
      <report id="SS" test="true()">m</report></rule></pattern></schema>`;
    // upper-case('ß') is 'SS'; translate() leaves it.
    expect(validate('<r><item k="ß"/><item k="ss"/><item k="s"/></r>', upper).schematron?.by_id).toEqual({
      SS: 2,
    });
    expect(engineError(() => validate('<r><item f="no"/></r>', rules('@f = false()'))).message).toMatch(
      /FORG0001/,
    );
  });

  it("answers as XPath 3.1 where XPath 1.0 reads a number otherwise ('INF', '1e3')", () => {
    expect(validate('<r><item qty="INF"/><item qty="1e3"/></r>', rules('@qty &gt; 999')).valid).toBe(true);
  });

  it('finds what a rule finds, per node, with tests on both engines', () => {
    const both = `<schema xmlns="${SCH}" queryBinding="xslt2"><pattern><rule context="item">
      <assert id="NAME" test="normalize-space(name) != ''">m</assert>
      <assert id="DEC" test="xs:decimal(@qty) &gt; 0">m</assert>
      <report id="NOTE" test="exists(note)">m</report>
    </rule></pattern></schema>`;
    const result = validate(
      '<r><item qty="1"><name>a</name><note/></item><item qty="0"><name/></item><item qty="2"><name>b</name></item></r>',
      both,
    );
    expect(result.schematron?.by_id).toEqual({ NOTE: 1, NAME: 1, DEC: 1 });
    expect(result.violations?.map((v) => ['id' in v ? v.id : '', v.path])).toEqual([
      ['NOTE', '/r/item[1]'],
      ['NAME', '/r/item[2]'],
      ['DEC', '/r/item[2]'],
    ]);
  });
});

describe('rule contexts selected by libxml2', () => {
  it('gives each node to the first rule that selects it, whichever engine selected it', () => {
    const rules = `<schema xmlns="${SCH}" queryBinding="xslt2"><pattern>
      <rule context="*[ends-with(name(), 'Amount')]"><report id="AMOUNT" test="true()">m</report></rule>
      <rule context="*[matches(name(), 'Price$')]"><report id="PRICE" test="true()">m</report></rule>
      <rule context="x"><report id="X" test="true()">m</report></rule>
    </pattern></schema>`;
    const result = validate('<r>\n<TaxAmount/>\n<Price/>\n<x/>\n<BaseAmount/>\n<UnitPrice/>\n</r>', rules);
    expect(result.violations?.map((v) => ['id' in v ? v.id : '', v.path])).toEqual([
      ['AMOUNT', '/r/TaxAmount'],
      ['PRICE', '/r/Price'],
      ['X', '/r/x'],
      ['AMOUNT', '/r/BaseAmount'],
      ['PRICE', '/r/UnitPrice'],
    ]);
  });
});

describe("libxml2's stack", () => {
  it("stays clear of its end on EN 16931's rules, whose root rule asks ~300 questions of one node", () => {
    const rules = readFileSync('test/fixtures/en16931/EN16931-UBL-validation-preprocessed.sch', 'utf8');
    const invoice = readFileSync('test/fixtures/en16931/examples/ubl-tc434-example1.xml', 'utf8');
    const guard = armStackGuard();
    expect(guard?.armed).toBe(true);
    expect(validate(invoice, rules).valid).toBe(true);
    expect(guard?.breach()).toBeUndefined();
  });
});
