import { describe, expect, it } from 'vitest';
import { compiledExpressions } from '../../../src/engine/libxml2/xpath31-view.js';
import { validate } from '../../../src/engine/validate/validate.js';
import { engineError } from '../engine-error.js';

const SCH = 'http://purl.oclc.org/dsdl/schematron';

/** A Schematron schema around `body`, with the given queryBinding (none: XPath 1.0). */
function schema(body: string, binding?: string, extra = ''): string {
  return `<schema xmlns="${SCH}"${binding ? ` queryBinding="${binding}"` : ''}${extra}>${body}</schema>`;
}

const ORDER = `<order id="o1">
  <item qty="2" price="3.50"/>
  <item qty="0" price="9"/>
  <item qty="1"/>
  <total>16</total>
</order>`;

const ORDER_RULES = `
  <pattern id="items">
    <rule context="item">
      <assert id="ITEM-QTY" flag="fatal" test="@qty &gt; 0">An item of <name/> needs a quantity above 0, not <value-of select="@qty"/>.</assert>
      <assert id="ITEM-PRICE" role="error" test="@price">Each item needs a price.</assert>
    </rule>
  </pattern>
  <pattern id="totals">
    <rule context="/order">
      <report id="ORDER-BIG" test="count(item) &gt; 2">The order has <value-of select="count(item)"/> items.</report>
    </rule>
  </pattern>`;

describe.each([
  ['XPath 1.0 (queryBinding absent)', undefined],
  ['XPath 3.1 (queryBinding xslt2)', 'xslt2'],
])('Schematron over %s', (_, binding) => {
  it('lists each failed assert and successful report with its id, flag or role, message, path and line', () => {
    const result = validate(ORDER, schema(ORDER_RULES, binding));
    expect(result).toMatchObject({ valid: false, total: 3, language: 'schematron' });
    expect(result.violations).toEqual([
      {
        message: 'An item of item needs a quantity above 0, not 0.',
        path: '/order/item[2]',
        line: 3,
        kind: 'assert',
        id: 'ITEM-QTY',
        flag: 'fatal',
        test: '@qty > 0',
      },
      {
        message: 'Each item needs a price.',
        path: '/order/item[3]',
        line: 4,
        kind: 'assert',
        id: 'ITEM-PRICE',
        role: 'error',
        test: '@price',
      },
      {
        message: 'The order has 3 items.',
        path: '/order',
        line: 1,
        kind: 'report',
        id: 'ORDER-BIG',
        test: 'count(item) > 2',
      },
    ]);
    expect(result.schematron).toEqual({
      phase: '#ALL',
      rules_fired: 4,
      nodes_checked: 4,
      by_id: { 'ITEM-QTY': 1, 'ITEM-PRICE': 1, 'ORDER-BIG': 1 },
      by_flag: { fatal: 1, error: 1, none: 1 },
    });
  });

  it('answers valid with what it checked', () => {
    const result = validate('<order><item qty="1" price="2"/></order>', schema(ORDER_RULES, binding));
    expect(result).toEqual({
      valid: true,
      total: 0,
      violations: [],
      language: 'schematron',
      schematron: { phase: '#ALL', rules_fired: 2, nodes_checked: 2, by_id: {}, by_flag: {} },
    });
  });

  it('gives each node to the first rule of a pattern that matches it', () => {
    const rules = `<pattern>
      <rule context="item[@price]"><assert id="FIRST" test="false()">first</assert></rule>
      <rule context="item"><assert id="SECOND" test="false()">second</assert></rule>
    </pattern>
    <pattern><rule context="item"><assert id="OTHER" test="false()">other pattern</assert></rule></pattern>`;
    const result = validate(ORDER, schema(rules, binding));
    expect(result.schematron?.by_id).toEqual({ FIRST: 2, SECOND: 1, OTHER: 3 });
  });

  it('binds ns prefixes and lets at schema, pattern and rule level', () => {
    const doc = '<i:inv xmlns:i="urn:inv"><i:line amount="5"/><i:line amount="7"/><i:sum>13</i:sum></i:inv>';
    const rules = `<ns prefix="x" uri="urn:inv"/>
      <let name="lines" value="//x:line"/>
      <pattern><let name="expected" value="sum($lines/@amount)"/>
        <rule context="x:sum"><let name="given" value="number(.)"/>
          <assert id="SUM" test="$given = $expected">Sum is <value-of select="$given"/>, lines add up to <value-of select="$expected"/>.</assert>
        </rule>
      </pattern>`;
    const result = validate(doc, schema(rules, binding));
    expect(result.violations).toMatchObject([
      { id: 'SUM', message: 'Sum is 13, lines add up to 12.', path: '/x:inv/x:sum' },
    ]);
    // Paths use the schema's own prefixes, and say which they are.
    expect(result.namespaces).toEqual({ x: 'urn:inv' });
  });

  it("binds in `namespaces` the prefixes the findings' paths and tests use, and no others", () => {
    const doc = '<i:inv xmlns:i="urn:inv" xmlns:c="urn:c"><i:line><c:qty>0</c:qty></i:line></i:inv>';
    const rules = `<ns prefix="x" uri="urn:inv"/><ns prefix="cq" uri="urn:c"/><ns prefix="unused" uri="urn:u"/>
      <pattern><rule context="x:line"><assert id="QTY" test="child::cq:qty > 0">qty</assert></rule></pattern>`;
    const result = validate(doc, schema(rules, binding));
    expect(result.violations).toMatchObject([{ id: 'QTY', path: '/x:inv/x:line' }]);
    // cq only in the test: the next query reads it (`x:line/cq:qty`).
    expect(result.namespaces).toEqual({ x: 'urn:inv', cq: 'urn:c' });
  });

  it('expands abstract rules where they are extended and abstract patterns with their params', () => {
    const rules = `<pattern>
        <rule abstract="true" id="priced"><assert id="PRICED" test="@price">priced</assert></rule>
        <rule context="item"><extends rule="priced"/><assert id="QTY" test="@qty">qty</assert></rule>
      </pattern>
      <pattern abstract="true" id="positive"><rule context="$what"><assert id="POS" test="$value &gt; 0">positive <value-of select="$value"/></assert></rule></pattern>
      <pattern is-a="positive" id="qtys"><param name="what" value="item"/><param name="value" value="@qty"/></pattern>`;
    const result = validate(ORDER, schema(rules, binding));
    expect(result.schematron?.by_id).toEqual({ PRICED: 1, POS: 1 });
    expect(result.violations.map((finding) => finding.message)).toEqual(['priced', 'positive 0']);
  });

  it('runs the patterns of the phase asked for, the default phase, or all', () => {
    const phases = `<phase id="only-totals"><active pattern="totals"/></phase>${ORDER_RULES}`;
    expect(validate(ORDER, schema(phases, binding), {}, { phase: 'only-totals' }).schematron).toMatchObject({
      phase: 'only-totals',
      by_id: { 'ORDER-BIG': 1 },
    });
    const defaulted = schema(phases, binding, ' defaultPhase="only-totals"');
    expect(validate(ORDER, defaulted).total).toBe(1);
    expect(validate(ORDER, defaulted, {}, { phase: '#ALL' }).total).toBe(3);
    expect(engineError(() => validate(ORDER, schema(phases, binding), {}, { phase: 'nope' })).message).toBe(
      'The Schematron schema has no phase "nope". Its phases: "only-totals"; or pass `phase`: "#ALL" to run every pattern.',
    );
  });

  it('adds the diagnostics an assert names to its message', () => {
    const rules = `<pattern><rule context="item"><assert test="@price" diagnostics="d1">No price.</assert></rule></pattern>
      <diagnostics><diagnostic id="d1">Quantity is <value-of select="@qty"/>.</diagnostic></diagnostics>`;
    expect(validate(ORDER, schema(rules, binding)).violations[0]?.message).toBe('No price. Quantity is 1.');
  });
});

describe('Schematron refusals', () => {
  it.each([
    ['an include', '<include href="rules.sch"/>', /includes `rules.sch`.*nothing is ever fetched/],
    [
      'an extends href',
      '<pattern><rule context="a"><extends href="other.sch#r"/></rule></pattern>',
      /extends `other.sch#r`, another file/,
    ],
    [
      'document() in a rule',
      '<pattern><rule context="a"><assert test="document(\'x.xml\')//b">x</assert></rule></pattern>',
      /calls `document\(\)` in `test`.*nothing is ever fetched/,
    ],
    ['doc() in a let', '<let name="codes" value="doc(\'codes.xml\')"/>', /calls `doc\(\)` in `value`/],
    [
      'an xsl:function',
      '<xsl:function xmlns:xsl="http://www.w3.org/1999/XSL/Transform" name="f:x"/>',
      /holds `xsl:function` .*an XSLT construct/,
    ],
    ['an unknown queryBinding', '', /queryBinding is "exslt"/],
  ])('refuses %s with a sentence', (_, body, message) => {
    const binding = body === '' ? 'exslt' : 'xslt2';
    const error = engineError(() => validate('<a/>', schema(body, binding)));
    expect(error.code).toBe('invalid-schema');
    expect(error.message).toMatch(message);
  });

  it('keeps a function name inside a string literal as text', () => {
    const rules =
      '<pattern><rule context="a"><assert test="\'document(x)\' = \'\'">m</assert></rule></pattern>';
    expect(validate('<a/>', schema(rules, 'xslt2')).total).toBe(1);
  });

  it('refuses an abstract rule that extends itself', () => {
    const rules = `<pattern><rule abstract="true" id="a"><extends rule="b"/></rule><rule abstract="true" id="b"><extends rule="a"/></rule>
      <rule context="x"><extends rule="a"/></rule></pattern>`;
    expect(engineError(() => validate('<x/>', schema(rules))).message).toMatch(
      /extends itself \(through a → b → a\)/,
    );
  });

  it('refuses phase for the other schema languages', () => {
    const xsd = '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a"/></xs:schema>';
    expect(engineError(() => validate('<a/>', xsd, {}, { phase: '#ALL' })).message).toMatch(
      /`phase` argument applies to Schematron only/,
    );
  });

  it('names the rule whose test XPath 3.1 cannot evaluate', () => {
    const rules =
      '<pattern><rule context="a"><assert id="T" test="xs:integer(\'x\') = 1">m</assert></rule></pattern>';
    expect(engineError(() => validate('<a/>', schema(rules, 'xslt2'))).message).toMatch(
      /^The assert "T" `xs:integer\('x'\) = 1` \(rule `a`, line 1\) could not be evaluated as XPath 3\.1: FORG0001/,
    );
  });

  it('counts a schema of too many elements as a limit, before evaluating any rule', () => {
    const rules = `<pattern>${'<rule context="a"><assert test="true()">m</assert></rule>'.repeat(30_000)}</pattern>`;
    const error = engineError(() => validate('<a/>', schema(rules)));
    expect(error.code).toBe('limit-exceeded');
    expect(error.message).toMatch(/more than 50,000 elements/);
  });
});

describe('XPath 3.1 rules kept compiled on a worker (ADR 0053), within what other calls can afford (ADR 0048)', () => {
  const keptChars = () =>
    [...(compiledExpressions()?.keys() ?? [])].reduce<number>(
      (sum, key) => sum + (typeof key === 'string' ? key.length : 0),
      0,
    );

  it("keeps a schema's compiled rules for its next call", () => {
    const rules = schema(ORDER_RULES, 'xslt2');
    validate(ORDER, rules);
    const kept = compiledExpressions()?.size ?? 0;
    expect(kept).toBeGreaterThan(0);
    validate(ORDER, rules);
    expect(compiledExpressions()?.size).toBe(kept);
  });

  it('lets go of compiled rules past 400,000 characters, however many there are', () => {
    // 300 rules of ~2,000 characters each: 600,000 characters, well under the 5,000 expressions.
    const long = (i: number) => `${i} = ${i}${' and true()'.repeat(180)}`;
    const rules = Array.from(
      { length: 300 },
      (_, i) => `<pattern><rule context="a"><assert id="L${i}" test="${long(i)}">m</assert></rule></pattern>`,
    ).join('');
    expect(validate('<a/>', schema(rules, 'xslt2'))).toMatchObject({ valid: true });
    expect(keptChars()).toBeLessThanOrEqual(400_000 + 10_000);
  });
});
