/**
 * XPath 3.1 beside XPath 1.0 (ADR 0033): what XPath 1.0 cannot read is evaluated as XPath 3.1
 * over the same parsed document; every XPath 1.0 answer stays as it was.
 */
import { describe, expect, it } from 'vitest';
import { query, queryAll } from '../../../src/engine/query/query.js';
import { engineError } from '../engine-error.js';

const orders = `<orders xmlns:x="urn:extra">
  <order id="A1" placed="2025-03-01T09:15:00" shipped="2025-03-03T17:00:00" status="shipped">
    <customer>Zoë</customer><line sku="P-1" qty="2" price="9.50"/><line sku="P-2" qty="1" price="120.00"/>
  </order>
  <order id="A2" placed="2025-03-02T11:00:00" shipped="2025-03-02T16:30:00" status="SHIPPED">
    <customer>Björn</customer><line sku="P-1" qty="10" price="9.50"/><x:note>rush &amp; wrap</x:note>
  </order>
  <order id="A3" placed="2025-03-04T08:00:00" status="open">
    <customer>Zoë</customer><line sku="P-3" qty="3" price="4.25"/><line sku="P-2" qty="2" price="110.00"/>
  </order>
</orders>`;

describe('which language answers', () => {
  it('asks XPath 3.1 at once for a function XPath 1.0 lacks, without running its arguments there first (ADR 0055)', () => {
    // As XPath 1.0, the predicate walks every <c> for each of 6,000 @b: past the step budget
    // before libxml2 finds distinct-values missing, which was the answer.
    const many = `<r>${'<a b="x"/>'.repeat(6000)}${'<c d="x"/>'.repeat(6000)}</r>`;
    expect(engineError(() => query(many, 'count(//a/@b[. = //c/@d])'))).toMatchObject({
      code: 'budget-exceeded',
    });
    expect(query(many, 'count(distinct-values(//a/@b[. = //c/@d]))')).toEqual({
      type: 'number',
      count: 1,
      values: ['1'],
      xpath_version: '3.1',
    });
    // One XPath 1.0 cannot compile keeps its compile error when XPath 3.1 cannot read it either.
    expect(engineError(() => query(orders, 'conut(//order'))).toMatchObject({ code: 'invalid-xpath' });
  });

  it('leaves every XPath 1.0 expression to XPath 1.0, answered as before', () => {
    expect(query(orders, 'count(//order)')).toEqual({ type: 'number', count: 1, values: ['3'] });
    // XPath 3.1 would raise a type error here; XPath 1.0 answers NaN, and answers it.
    expect(query(orders, "sum(//line/@qty) + 'a'")).toEqual({ type: 'number', count: 1, values: ['NaN'] });
    expect(query(orders, '//order[1]/@id')).toEqual({ type: 'node-set', count: 1, values: ['A1'] });
  });

  it('evaluates what XPath 1.0 cannot compile, or a function it lacks, as XPath 3.1 and says so', () => {
    expect(query(orders, "//order ! string(@id) => string-join(',')")).toEqual({
      type: 'string',
      count: 1,
      values: ['A1,A2,A3'],
      xpath_version: '3.1',
    });
    expect(query(orders, 'max(//line/@qty)')).toEqual({
      type: 'number',
      count: 1,
      values: ['10'],
      xpath_version: '3.1',
    });
    expect(query(orders, 'round(2.567, 2)').values).toEqual(['2.57']);
  });

  it('keeps XPath 1.0 error for an expression written in XPath 1.0 that is valid in neither', () => {
    const error = engineError(() => query(orders, '//order[@id = "A1"'));
    expect(error.message).toMatch(
      /^The `xpath` argument is not a valid XPath 1\.0 expression at character 19/,
    );
    expect(engineError(() => query(orders, 'count()')).message).toContain('could not be evaluated');
  });

  it('gives XPath 3.1 syntax errors their code, position and caret', () => {
    const error = engineError(() => query(orders, 'for $o in //order return'));
    expect(error.code).toBe('invalid-xpath');
    expect(error.message).toMatch(
      /^The `xpath` argument is not a valid XPath 1\.0 or XPath 3\.1 expression at character 25: XPST0003 /,
    );
    expect(error.message).toMatch(/\n {2}for \$o in \/\/order return\n {2}\s{24}\^$/);
  });

  it('names a variable nothing binds, and takes one the expression binds', () => {
    expect(engineError(() => query(orders, '$limit')).code).toBe('unbound-variable');
    const error = engineError(() => query(orders, 'for $o in //order return $limit'));
    expect(error.code).toBe('unbound-variable');
    expect(error.message).toContain('`$limit`, which nothing binds (XPST0008)');
    expect(query(orders, 'let $n := count(//order) return $n * 2').values).toEqual(['6']);
  });

  it('explains a function given several values instead of one', () => {
    const error = engineError(() => query(orders, 'lower-case(//customer)'));
    expect(error.message).toContain('XPTY0004');
    expect(error.message).toContain('apply it to each with `!` (`//a ! lower-case(.)`)');
  });
});

describe('XPath 3.1 answers', () => {
  it('sums values computed per node', () => {
    expect(query(orders, 'sum(//line ! (@qty * @price))').values).toEqual(['466.75']);
  });

  it('answers distinct values, in order of first appearance', () => {
    expect(query(orders, 'distinct-values(//line/@sku)')).toEqual({
      type: 'sequence',
      count: 3,
      values: ['P-1', 'P-2', 'P-3'],
      xpath_version: '3.1',
    });
  });

  it('groups: each distinct value with a count', () => {
    expect(
      query(orders, "for $c in distinct-values(//customer) return $c || '=' || count(//order[customer = $c])")
        .values,
    ).toEqual(['Zoë=2', 'Björn=1']);
  });

  it('sorts with fn:sort and ranks with order by (XQuery 3.1 FLWOR)', () => {
    expect(query(orders, 'sort(//line/@sku ! string(.))').values).toEqual([
      'P-1',
      'P-1',
      'P-2',
      'P-2',
      'P-3',
    ]);
    expect(query(orders, 'sort(//line ! number(@qty))').values).toEqual(['1', '2', '2', '3', '10']);
    expect(
      query(
        orders,
        '(for $o in //order order by sum($o/line ! (@qty * @price)) descending return string($o/@id))[position() le 2]',
      ).values,
    ).toEqual(['A3', 'A1']);
  });

  it('reads a FLWOR of several clauses as XQuery 3.1, and tells its own errors', () => {
    expect(
      query(
        orders,
        "for $c in distinct-values(//customer) let $n := count(//order[customer = $c]) where $n > 1 order by $c return $c || '=' || $n",
      ).values,
    ).toEqual(['Zoë=2']);
    const missing = engineError(() =>
      query(
        orders,
        "for $o in //order let $t := sum($o/line/@qty) order by $t return format-date(current-date(), '[D]') || $t",
      ),
    );
    expect(missing.message).toContain('XPST0017');
    expect(missing.message).toContain('format-date');
    // format-number is the server's own (ADR 0056).
    expect(
      query(
        orders,
        "for $o in //order let $t := sum($o/line/@qty) order by $t return format-number($t, '#,##0.0')",
      ).values.length,
    ).toBeGreaterThan(0);
    // Two keys: the second orders the ties of the first, each in its own direction.
    expect(
      query(
        orders,
        'for $o in //order order by string($o/customer) descending, $o/@id descending return string($o/@id)',
      ).values,
    ).toEqual(['A3', 'A1', 'A2']);
  });

  it('computes with dates and durations', () => {
    expect(
      query(orders, 'xs:dateTime(//order[1]/@shipped) - xs:dateTime(//order[1]/@placed)').values,
    ).toEqual(['P2DT7H45M']);
    expect(query(orders, 'year-from-dateTime(xs:dateTime(//order[3]/@placed))')).toEqual({
      type: 'number',
      count: 1,
      values: ['2025'],
      xpath_version: '3.1',
    });
  });

  it('takes the least and greatest of durations by value (fontoxpath compared their strings)', () => {
    const durations = "(xs:dayTimeDuration('PT30M'), xs:dayTimeDuration('PT1H'), xs:dayTimeDuration('PT5M'))";
    expect(query(orders, `max(${durations})`).values).toEqual(['PT1H']);
    expect(query(orders, `min(${durations})`).values).toEqual(['PT5M']);
    expect(
      query(orders, 'min(//order[@shipped] ! (xs:dateTime(@shipped) - xs:dateTime(@placed)))').values,
    ).toEqual(['PT5H30M']);
    expect(query(orders, "max((xs:yearMonthDuration('P1Y'), xs:yearMonthDuration('P13M')))").values).toEqual([
      'P1Y1M',
    ]);
  });

  it('matches regular expressions and splits strings', () => {
    expect(query(orders, "//order[matches(@id, '^A[23]$')]/customer").values).toEqual(['Björn', 'Zoë']);
    expect(query(orders, "tokenize('a, b,c', ',\\s*')").values).toEqual(['a', 'b', 'c']);
  });

  it('answers booleans, maps and arrays, and the empty sequence, each with its type', () => {
    expect(query(orders, 'some $l in //line satisfies $l/@qty > 5')).toMatchObject({
      type: 'boolean',
      values: ['true'],
    });
    expect(query(orders, "map { 'orders': count(//order) }")).toMatchObject({
      type: 'map',
      count: 1,
      values: ['{"orders":3}'],
    });
    expect(query(orders, 'array { 1, 2 }')).toMatchObject({ type: 'array', values: ['[1,2]'] });
    expect(query(orders, '//nothing ! string(.)')).toEqual({
      type: 'sequence',
      count: 0,
      values: [],
      xpath_version: '3.1',
    });
  });

  it('gives nodes in every output form, as for XPath 1.0', () => {
    const xpath = "//order[lower-case(@status) = 'shipped']";
    expect(query(orders, `${xpath}/@id`).values).toEqual(['A1', 'A2']);
    expect(query(orders, `${xpath}/customer`, {}, undefined, 'xml').values).toEqual([
      '<customer>Zoë</customer>',
      '<customer>Björn</customer>',
    ]);
    expect(query(orders, `${xpath}/@id`, {}, undefined, 'paths')).toMatchObject({
      values: ['/orders/order[1]/@id', '/orders/order[2]/@id'],
      lines: [2, 5],
    });
  });

  it('resolves prefixes only through namespaces, and knows its own (xs, fn, math, map, array)', () => {
    expect(query(orders, '//x:note ! upper-case(.)', { x: 'urn:extra' }).values).toEqual(['RUSH & WRAP']);
    expect(engineError(() => query(orders, '//x:note ! upper-case(.)')).code).toBe('unbound-prefix');
    expect(query(orders, 'fn:count(//order) + math:pi() idiv 1').values).toEqual(['6']);
  });

  it('cuts a long sequence at the output budget, keeping the count exact', () => {
    const result = query(orders, '1 to 100000', {}, { maxChars: 50, maxValues: 1000 });
    expect(result.count).toBe(100_000);
    expect(result.truncated).toBe(true);
    expect(result.values.join('').length).toBeLessThanOrEqual(50);
  });
});

describe('a batch', () => {
  it('mixes XPath 1.0 and XPath 3.1 entries, each marked by what answered it', () => {
    const entries = queryAll(orders, ['count(//line)', 'distinct-values(//customer)', '//order[']);
    expect(entries[0]).toEqual({ xpath: 'count(//line)', type: 'number', count: 1, values: ['5'] });
    expect(entries[1]).toMatchObject({ values: ['Zoë', 'Björn'], xpath_version: '3.1' });
    expect(entries[2]).toMatchObject({ code: 'invalid-xpath' });
  });
});

describe('what XQuery binds, builds and serializes (issue 33 F11, item 5)', () => {
  const doc = '<r><a/><a/></r>';

  it('takes variables and functions the expression itself declares', () => {
    expect(query(doc, 'declare function local:f($n) { $n * 2 }; local:f(21)').values).toEqual(['42']);
    expect(query(doc, 'declare variable $x := count(//a); $x * 10').values).toEqual(['20']);
    // A comment can neither hide an outside variable nor make one of its own.
    expect(query(doc, 'count(//a) (: $x :)').values).toEqual(['2']);
    const hidden = engineError(() => query(doc, '$x (: for $y :)'));
    expect(hidden.code).toBe('unbound-variable');
    expect(hidden.message).toContain('`$x`, which nothing binds (XPST0008)');
  });

  it('says an external variable has nothing to supply it, instead of the bare XQDY0054', () => {
    const error = engineError(() => query(doc, 'declare variable $limit external; $limit'));
    expect(error.code).toBe('unbound-variable');
    expect(error.message).toMatch(
      /external variable \(`\$limit`\) \(XQDY0054\), and nothing here supplies one/,
    );
  });

  it('says in a sentence that no node can be built, never a JavaScript failure', () => {
    for (const xpath of [
      'element a { 1 }',
      '<a/>',
      'document { 1 }',
      'copy $c := /r modify () return count($c/a)',
    ]) {
      const error = engineError(() => query(doc, xpath));
      expect(error.message, xpath).toContain('it builds new nodes');
      expect(error.message, xpath).not.toMatch(/Cannot read properties|node factory|counterpart/);
    }
  });

  it('says serialize() is not available and what shows markup instead', () => {
    const error = engineError(() => query(doc, 'serialize(//a[1])'));
    expect(error.message).toContain('`serialize()` is not available here');
    expect(error.message).toContain('`output: "xml"`');
    expect(error.message).not.toContain('xmlSerializer');
  });
});
