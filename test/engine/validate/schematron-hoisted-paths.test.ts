import { describe, expect, it } from 'vitest';
import { absolutePaths } from '../../../src/engine/libxml2/xpath31-paths.js';
import {
  hoistAbsolutePaths,
  unionOfDescendants,
} from '../../../src/engine/validate/schematron/hoisted-paths.js';
import { validate } from '../../../src/engine/validate/validate.js';

const SCH = 'http://purl.oclc.org/dsdl/schematron';

describe('absolutePaths', () => {
  const texts = (expression: string) =>
    absolutePaths(expression)?.map(({ start, end, variables }) => [expression.slice(start, end), variables]);

  it('reads each outermost absolute path whole: predicates, axes, attributes, calls and parenthesised steps', () => {
    expect(texts("sum(//(a|b)/xs:decimal(c)) = /r/@t and exists(//x[y = 'z']/child::w[1])")).toEqual([
      ['//(a|b)/xs:decimal(c)', false],
      ['/r/@t', false],
      ["//x[y = 'z']/child::w[1]", false],
    ]);
  });

  it('says which paths name a variable, and leaves relative paths, paths after a variable and braces alone', () => {
    expect(
      texts('every $c in k satisfies //t[@c = $c] and $v//a and b//c and (function() { //d })() or //e'),
    ).toEqual([
      ['//t[@c = $c]', true],
      ['//e', false],
    ]);
  });
});

describe('hoistAbsolutePaths', () => {
  it('takes out each absolute path naming no variable, once for identical paths across tests', () => {
    expect(
      hoistAbsolutePaths(['count(//a) = count(b)', 'exists(//a) and //t[@c = $oxml-current/@c]']),
    ).toEqual({
      tests: ['count($oxml-path-1) = count(b)', 'exists($oxml-path-1) and //t[@c = $oxml-current/@c]'],
      lets: [{ name: 'oxml-path-1', value: '//a' }],
    });
  });
});

describe('a rule on many nodes whose tests read absolute paths (XPath 3.1)', () => {
  const DOC = `<r total="6"><line n="1" v="1"/><line n="2" v="2"/><line n="3" v="3"/><ref to="2"/><ref to="9"/></r>`;
  const RULES = `<schema xmlns="${SCH}" queryBinding="xslt2"><pattern>
    <rule context="ref">
      <let name="to" value="@to"/>
      <assert id="REF" test="//line[@n = $to]">No line <value-of select="$to"/>.</assert>
      <assert id="REF-CURRENT" test="//line[@n = current()/@to]">No line for current().</assert>
      <assert id="SUM" test="sum(//line/@v) = number(/r/@total)">Lines do not add up.</assert>
      <report id="COUNT" test="count(//line) = 3">Three lines.</report>
    </rule></pattern></schema>`;

  it('gives each context node its own answer where the path names the rule or node, the same where it does not', () => {
    const result = validate(DOC, RULES);
    expect(result.schematron?.by_id).toEqual({ REF: 1, 'REF-CURRENT': 1, COUNT: 2 });
    expect(result.violations?.filter((v) => v.message === 'No line 9.')).toHaveLength(1);
  });
});

describe('unionOfDescendants', () => {
  it('writes //(a|b) at the start of a path as a union of two paths the planner reads, and leaves the rest', () => {
    expect(unionOfDescendants('//(cac:A|cac:B)/xs:decimal(c)')).toBe('(//cac:A | //cac:B)/xs:decimal(c)');
    expect(unionOfDescendants('//(a)')).toBe('(//a)');
    expect(unionOfDescendants('//(a|b[1])/c')).toBe('//(a|b[1])/c');
    expect(unionOfDescendants('/r//(a|b)')).toBe('/r//(a|b)');
  });

  it('answers as before: the same nodes, in document order, once each', () => {
    const rules = `<schema xmlns="${SCH}" queryBinding="xslt2"><pattern><rule context="/r">
      <assert id="SUM" test="sum(//(a|b)/xs:decimal(@v)) = 6 and string-join(//(b|a)/@v, ',') = '1,2,3'">m</assert>
    </rule></pattern></schema>`;
    expect(validate('<r><a v="1"><b v="2"/></a><a v="3"/></r>', rules).valid).toBe(true);
  });
});
