import type { XmlDocument } from 'libxml2-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentPointer, stringValue } from '../../../src/engine/libxml2/tree.js';
import { planPaths } from '../../../src/engine/libxml2/xpath31-paths.js';
import {
  evaluateXPath31Counted,
  type Xpath31Item,
  Xpath31View,
} from '../../../src/engine/libxml2/xpath31-view.js';
import { parseDocument } from '../../../src/engine/parse.js';

/* Absolute paths of an XPath 3.1 expression selected by libxml2 (ADR 0055). */

const NS = { x: 'urn:x' };
const paths = (expression: string) => planPaths(expression, NS)?.paths.map(({ path }) => path) ?? [];

describe('planPaths: which paths libxml2 selects', () => {
  it('takes child, descendant and attribute steps by name, with predicates that mean the same in XPath 1.0', () => {
    expect(planPaths('count(//x:Rule/@id) => xs:integer()', NS)).toEqual({
      expression: 'count((Q{urn:oxml-mcp:xpath31-selected}selected(1))) => xs:integer()',
      paths: [{ path: '//x:Rule/@id', guards: [], textsOnly: false }],
    });
    expect(paths("//item[@type = 'x']/name ! string()")).toEqual(["//item[@type = 'x']/name"]);
    expect(paths('//a[1]/b[not(@c) and (d or e != "f")]/*')).toEqual([
      '//a[1]/b[not(@c) and (d or e != "f")]/*',
    ]);
    expect(paths('/r/@*')).toEqual(['/r/@*']);
  });

  it('selects a path written twice once, and the paths of a grouping idiom', () => {
    const plan = planPaths(
      "for $k in distinct-values(//r/@k) return $k || ':' || count(//r[@k = $k]) + count(//r/@k)",
      NS,
    );
    expect(plan?.paths.map(({ path }) => path)).toEqual(['//r/@k', '//r']);
    // `[@k = $k]` on a selection: answered from an index of it by @k.
    expect(plan?.expression).toContain("count(Q{urn:oxml-mcp:xpath31-selected}where(2, '@k', $k))");
    // So is `[. = $k]`, and `[name = $k]` for a child element.
    expect(planPaths('//t[. = $k], //r[$k = price]', NS)?.expression).toBe(
      "Q{urn:oxml-mcp:xpath31-selected}where(1, '.', $k), Q{urn:oxml-mcp:xpath31-selected}where(2, 'price', $k)",
    );
    expect(planPaths('sum(//r/price), fn:max(//r/@n), count(//r)', NS)?.expression).toBe(
      'sum(Q{urn:oxml-mcp:xpath31-selected}per-item-double(1)), fn:max(Q{urn:oxml-mcp:xpath31-selected}per-item-double(2)), count((Q{urn:oxml-mcp:xpath31-selected}selected(3)))',
    );
    expect(planPaths('//r[price = $k + 1], //r[x:p = $k], //r[name() = $k]', NS)?.expression).not.toContain(
      'where(',
    );
    expect(plan?.expression).toContain('+ count((Q{urn:oxml-mcp:xpath31-selected}selected(1)))');
  });

  it('guards a comparison with a number: libxml2 reads a value that is not one as NaN', () => {
    expect(planPaths('count(//record[price > 50])', NS)?.paths).toEqual([
      {
        path: '//record[price > 50]',
        guards: ['//record/price[number(.) != number(.)]'],
        textsOnly: false,
      },
    ]);
    expect(planPaths('//a/b[. = 3][@n]', NS)?.paths).toEqual([
      { path: '//a/b[. = 3][@n]', guards: ['//a/b/self::node()[number(.) != number(.)]'], textsOnly: false },
    ]);
  });

  it('stops before a step or predicate XPath 1.0 would read otherwise, and leaves the rest to XPath 3.1', () => {
    // Ordered comparisons of text: by number in XPath 1.0, by code point in 3.1.
    expect(paths("//a[@n > 'b']/c")).toEqual(['//a']);
    expect(planPaths("//a[@n > 'b']/c", NS)?.expression).toBe(
      "(Q{urn:oxml-mcp:xpath31-selected}selected(1))[@n > 'b']/c",
    );
    // A positional predicate the planner cannot read ends the path before its step.
    expect(paths('//a/b[count(c) - 1]/d')).toEqual(['//a']);
    expect(paths('//a/b[last()]')).toEqual(['//a']);
    expect(paths('//a/..')).toEqual(['//a']);
    expect(paths('//a/string()')).toEqual(['//a']);
    expect(paths('//a/child::b')).toEqual(['//a']);
    expect(paths('//a[@v = $v]')).toEqual(['//a']);
    expect(paths("//a[@v = 'it''s']")).toEqual(['//a']);
    expect(paths('//a[@v = 1e3]')).toEqual(['//a']);
  });

  it('looks the nodes of a step up in the texts of a selection they are compared with by `=`', () => {
    expect(planPaths('count(distinct-values(//x:Profile/x:select/@idref[. = //x:Rule/@id]))', NS)).toEqual({
      expression:
        'count(distinct-values((Q{urn:oxml-mcp:xpath31-selected}selected(1))[Q{urn:oxml-mcp:xpath31-selected}equals-any((.) ! string(.), 2)]))',
      paths: [
        { path: '//x:Profile/x:select/@idref', guards: [], textsOnly: false },
        { path: '//x:Rule/@id', guards: [], textsOnly: false },
      ],
    });
    expect(planPaths('//a[b/@t = //c/@id and @u]', NS)?.expression).toBe(
      '(Q{urn:oxml-mcp:xpath31-selected}selected(1))[Q{urn:oxml-mcp:xpath31-selected}equals-any((b/@t) ! string(.), 2) and @u]',
    );
    // A filter's `.` may be a number, which `=` compares as one: left to XPath 3.1.
    expect(planPaths('(1, 2)[. = //b]', NS)?.expression).toBe(
      '(1, 2)[. = (Q{urn:oxml-mcp:xpath31-selected}selected(1))]',
    );
    expect(planPaths('//a[@t != //c/@id]', NS)?.expression).toContain('[@t != (Q{');
  });

  it('answers distinct-values of a selected path from its distinct texts, with no node wrapped', () => {
    expect(planPaths('string-join(distinct-values(//@xml:lang))', NS)).toEqual({
      expression: 'string-join((Q{urn:oxml-mcp:xpath31-selected}distinct-texts(1)))',
      paths: [{ path: '//@xml:lang', guards: [], textsOnly: true }],
    });
    // Counted: only their number, no value handed to fontoxpath.
    expect(planPaths('count(distinct-values(//@xml:lang)) + 1', NS)).toEqual({
      expression: 'Q{urn:oxml-mcp:xpath31-selected}distinct-count(1) + 1',
      paths: [{ path: '//@xml:lang', guards: [], textsOnly: true }],
    });
    // A path also read as nodes elsewhere is selected once, as nodes, for both uses.
    expect(planPaths('distinct-values(//a/@b) , //a/@b', NS)?.paths).toEqual([
      { path: '//a/@b', guards: [], textsOnly: false },
    ]);
    // With a collation, or over more than the path, distinct-values stays fontoxpath's.
    expect(planPaths("distinct-values(//a, 'c')", NS)?.expression).toBe(
      "distinct-values((Q{urn:oxml-mcp:xpath31-selected}selected(1)), 'c')",
    );
  });

  it('leaves a step whose later predicate counts positions to XPath 3.1, whole', () => {
    expect(planPaths('//a[b/@t = //c/@id][1]', NS)?.paths.map(({ path }) => path)).toEqual(['//c/@id']);
    expect(paths("//a[@n > 'b'][2]")).toEqual([]);
  });

  it('takes nothing it cannot be sure of', () => {
    for (const expression of [
      'a/b//c', // relative: the context item is not always the document
      '$doc//a',
      '//y:a', // a prefix the call does not bind
      '//*:a',
      '//Q{urn:x}a',
      'map { "a": //a }', // braces: an inline function has no context item
      'function($n) { //a }',
      '"//a"',
      '(: //a :) 1',
      '//text()',
      '/',
      '2 * //a', // `*` may be a name test, so what follows it is not read as an operand
    ]) {
      expect(planPaths(expression, NS), expression).toBeNull();
    }
  });

  it('reads keywords as operators only after an operand', () => {
    expect(paths('if (//a) then //b else //c')).toEqual(['//a', '//b', '//c']);
    expect(paths('some $v in //a satisfies $v = 1')).toEqual(['//a']);
    // `return` here is an element name: `/return//b` is one path.
    expect(paths('/r/return//b')).toEqual(['/r/return//b']);
  });
});

const XML = `<d xmlns:x="urn:x">
  <r k="a" n="1"><price>10</price></r><r k="b" n="2"><price>60</price></r>
  <r k="a" n="3"><price> 70 </price><x:note>x1</x:note></r><r k="c" n="04"><price>5</price></r>
  <g><item type="t" id="i1"/><item type="u" id="i2"/><item type="t" id="i3"/></g>
</d>`;
const ODD = '<d><r><price>10</price></r><r><price>n/a</price></r><r><price>INF</price></r></d>';

describe('evaluateXPath31Counted with paths selected by libxml2', () => {
  let doc: XmlDocument;
  let odd: XmlDocument;
  beforeAll(() => {
    doc = parseDocument(XML, 'query');
    odd = parseDocument(ODD, 'query');
  });
  afterAll(() => {
    doc.dispose();
    odd.dispose();
  });

  const shown = (items: Xpath31Item[]) =>
    items.map((item) => (item.kind === 'node' ? `node ${stringValue(item.node)}` : JSON.stringify(item)));
  const shownTexts = (items: string[] | undefined) =>
    (items ?? []).map((item) => (JSON.parse(item) as { text: string }).text);
  const both = (source: XmlDocument, expression: string) => {
    const run = (selectPaths: boolean) => {
      const view = new Xpath31View(documentPointer(source));
      try {
        const answer = evaluateXPath31Counted(documentPointer(source), expression, NS, { view, selectPaths });
        return { answer: { ...answer, items: shown(answer.items) }, wrappers: view.size };
      } catch (error) {
        return { error: (error as Error).message.split('\n')[0], wrappers: view.size };
      }
    };
    return { selected: run(true), walked: run(false) };
  };

  it('answers as fontoxpath alone does, and reaches far fewer nodes', () => {
    for (const expression of [
      'count(//r[price > 50]) => xs:integer()',
      'sum(//r ! number(price))',
      'sum(//r/price) => xs:double()',
      "for $k in distinct-values(//r/@k) return $k || ':' || count(//r[@k = $k])",
      "//item[@type = 't']/@id ! string()",
      '//r[2]/@n, //r[@n = 4]/@k',
      '(//x:note, //r[1]/price)',
      'reverse(//g/item)[1]/@id ! string()',
      "//r[@n > '3']/@n ! string()",
      '//g/item[@id = //r/@k or @type = //r/@k]/@id ! string()',
      "//r[@k = //item/@type or price = //r[@n = '3']/price]/@n ! string()",
      '//r[@k = //r/@k][2]/@n ! string()',
      'let $n := //r/@n return (1, 3, "a")[. = $n]',
      "let $keys := ('c', 'a') return //r[@k = $keys]/@n ! string()",
      'distinct-values(//r/@k), distinct-values(//price) ! (. instance of xs:untypedAtomic)',
      'distinct-values(//r/price)[. > 8]',
      // Untyped: '04' equals 4 as a number, and ' 70 ' keeps its spaces as a text.
      'distinct-values(//r/@n) = 4, distinct-values(//price) ! string()',
      'count(distinct-values(//@k)), distinct-values(/d/g/item/@type)',
      'count(distinct-values(//r/price)), count(distinct-values(//r/@k)) + count(//r/@k)',
      // One path read both ways: selected as nodes, its distinct texts taken from them.
      "string-join(for $k in distinct-values(//r/@k) return $k || '=' || count(//r/@k[. = $k]), ' ')",
      'for $p in distinct-values(//price) return count(//price[. = $p])',
      // A child element as the key: each r under each of its prices' texts; several keys at once.
      "for $c in ('10', '60', ' 70 ', '70') return count(//r[price = $c])",
      "let $keys := ('5', '10') return //r[$keys = price]/@n ! string()",
      // A number compares as a number ('04' = 4): left to fontoxpath as written.
      'for $n in (1, 4) return count(//r[@n = $n])',
      // An aggregate of a selected path: its texts cast to xs:double from the structs.
      'sum(//r/price) => xs:double(), avg(//r/@n), max(//r/price), min(//g/item/@id ! string())',
      'for $k in //g/item/@type return count(//r[$k = @k]) + count(//g/item[@type = $k])',
    ]) {
      const { selected, walked } = both(doc, expression);
      expect(selected.answer, expression).toEqual(walked.answer);
      // A step by name wraps only the nodes it takes (ADR 0055, addendum): a path whose join the
      // positional `[2]` keeps in fontoxpath, or a number key evaluated as written, reaches as
      // many nodes either way, never more.
      if (expression.startsWith('//r[@k = //r/@k][2]') || expression.includes('(1, 4)'))
        expect(selected.wrappers, expression).toBeLessThanOrEqual(walked.wrappers);
      else expect(selected.wrappers, expression).toBeLessThan(walked.wrappers);
    }
  });

  it('compares a number key as a number: `where` hands it back to evaluation as written', () => {
    // @n="04" equals 4 as a number, not as text.
    const { selected, walked } = both(doc, 'for $n in (1, 3, 4) return count(//r[@n = $n])');
    expect(selected.answer?.items).toEqual(walked.answer?.items);
    expect(shownTexts(selected.answer?.items)).toEqual(['1', '1', '1']);
  });

  it('evaluates as written when a compared value is not a number to libxml2, and fails as 3.1 fails', () => {
    const failing = both(odd, 'count(//r[price > 5]) => xs:integer()');
    expect(failing.selected.error).toMatch(/^FORG0001/);
    expect(failing.selected).toEqual(failing.walked);
    // `INF` is a number to XPath 3.1 (not to 1.0): the answer stays 3.1's.
    const infinite = both(odd, 'count(//r[price = "INF" or price > 50]) => xs:integer()');
    expect(infinite.selected).toEqual(infinite.walked);
    // sum, avg, min and max cast each text to xs:double: `n/a` fails, `INF` is infinite, as written.
    for (const expression of [
      'sum(//r/price)',
      'max(//r[2]/price)',
      'avg(//r[3]/price)',
      'min(//r[position() != 2]/price)',
    ]) {
      const aggregate = both(odd, expression);
      expect(aggregate.selected, expression).toEqual(aggregate.walked);
    }
  });

  it('answers an absolute path from the document where XPath 3.1 has no node to start from (the one difference)', () => {
    const { selected, walked } = both(doc, '(1, 2)[//g]');
    // fontoxpath fails there (with a JavaScript TypeError of its own, where XPath says XPDY0050).
    expect(walked.error).toEqual(expect.any(String));
    expect(selected.answer?.count).toBe(2);
  });

  it('keeps the error of the expression as written when the rewritten one fails', () => {
    const { selected, walked } = both(doc, '//r/@k + 1');
    expect(selected.error).toMatch(/^FORG0001|^XPTY0004/);
    expect(selected.error).toBe(walked.error);
  });
});
