import { describe, expect, it } from 'vitest';
import { EngineError } from '../../src/engine/errors.js';
import { query } from '../../src/engine/query/query.js';
import { withXPath2Hint } from '../../src/tools/xpath2-hints.js';
import { engineError } from '../engine/engine-error.js';

const catalog =
  '<catalog><book year="2001"><name>Dune</name><price>9.99</price></book><book year="1999"><name>Emma</name><price>25</price></book><book><name>Ulysses</name><price>12.5</price></book></catalog>';

/** The message the tool gives for an expression the engine refuses. */
function hinted(xpath: string, namespaces: Record<string, string> = {}): string {
  const error = withXPath2Hint(
    engineError(() => query(catalog, xpath, namespaces)),
    xpath,
  );
  expect(error).toBeInstanceOf(EngineError);
  return (error as EngineError).message;
}
/** The last expression the message quotes: the one to write. */
const suggested = (message: string) => [...message.matchAll(/`([^`]+)`/g)].at(-1)?.[1] ?? '';

describe('XPath 2.0 functions get their XPath 1.0 form', () => {
  it.each([
    ['max(//price)', '//price[not(. < //price)]', ['25']],
    ['min(//book/price)', '//book/price[not(. > //book/price)]', ['9.99']],
    [
      'lower-case(//name[1])',
      "translate(//name[1], 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')",
      ['dune'],
    ],
    [
      'upper-case((//name)[2])',
      "translate((//name)[2], 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')",
      ['EMMA'],
    ],
    ['avg(//price)', 'sum(//price) div count(//price)', ['15.83']],
    ['exists(//book[@year])', 'boolean(//book[@year])', ['true']],
    ['empty(//magazine)', 'not(//magazine)', ['true']],
    ['abs(-3)', '-3 * ((-3 > 0) - (-3 < 0))', ['3']],
    [
      'abs(//price[1] - 20)',
      '(//price[1] - 20) * (((//price[1] - 20) > 0) - ((//price[1] - 20) < 0))',
      ['10.01'],
    ],
  ])('%s is said as %s, which XPath 1.0 evaluates', (xpath, written, expected) => {
    const message = hinted(xpath);
    expect(message).toContain(`\`${xpath.replace(/\(.*/, '')}()\` is not XPath 1.0`);
    expect(suggested(message)).toBe(written);
    const value = query(catalog, written).values.map((v) =>
      Number.isNaN(Number(v)) ? v : String(Math.round(Number(v) * 100) / 100),
    );
    expect(value).toEqual(expected);
  });

  it('rewrites a call inside a larger expression, and the whole expression too', () => {
    const message = hinted("//book[ends-with(name, 'a')]/name");
    expect(message).toContain("write `substring(name, string-length(name) - string-length('a') + 1) = 'a'`");
    expect(message).toContain('The whole expression in XPath 1.0: `');
    expect(query(catalog, suggested(message)).values).toEqual(['Emma']);
    const nested = hinted('//book[price = max(//price)]/name');
    expect(query(catalog, suggested(nested)).values).toEqual(['Emma']);
    const twice = hinted('upper-case(lower-case(//name[1]))');
    expect(query(catalog, suggested(twice)).values).toEqual(['DUNE']);
  });

  it('says what to do where XPath 1.0 has no equivalent expression', () => {
    expect(hinted("//name[matches(., '^D')]")).toContain('XPath 1.0 has no regular expressions');
    expect(hinted("replace(//name[1], 'u', 'o')")).toContain("translate(//name[1], 'abc', 'xyz')");
    expect(hinted("string-join(//name, ', ')")).toContain('query the nodes themselves (//name)');
    expect(hinted('distinct-values(//book/@year)')).toContain('preceding::');
    expect(hinted("tokenize(//name[1], 'u')")).toContain("substring-before(//name[1], 'u')");
    expect(hinted('current-date()')).toContain('XPath 1.0 has no clock');
    const message = hinted('max(//price) + string-join(//name, ",")');
    expect(message).not.toContain('The whole expression');
  });

  it('names at most three functions, once each', () => {
    const message = hinted(
      'lower-case(//name) and upper-case(//name) and avg(//price) and abs(1) and lower-case(//x)',
    );
    expect(message.match(/is not XPath 1\.0/g)).toHaveLength(3);
  });

  it('answers fn: and xs: prefixes, which no binding would help, without asking for one', () => {
    const fn = hinted('fn:max(//price)');
    expect(fn).toMatch(
      /^The expression `fn:max\(\/\/price\)` calls XPath 2\.0 functions; XPath 1\.0 functions take no prefix\./,
    );
    expect(fn).not.toContain('xml_inspect');
    expect(suggested(fn)).toBe('//price[not(. < //price)]');
    expect(hinted('fn:count(//book)')).toContain(
      "`fn:count()` is XPath 1.0's `count()`: write it without `fn:`.",
    );
    const xs = hinted('xs:integer((//price)[2]) + 1');
    expect(query(catalog, suggested(xs)).values).toEqual(['26']);
  });

  it('leaves every other error as it was', () => {
    const unbound = engineError(() => query(catalog, '//p:book'));
    expect(withXPath2Hint(unbound, '//p:book')).toBe(unbound);
    const unknown = engineError(() => query(catalog, 'frobnicate(//book)'));
    expect(withXPath2Hint(unknown, 'frobnicate(//book)')).toBe(unknown);
    const bug = new Error('a bug');
    expect(withXPath2Hint(bug, 'max(1)')).toBe(bug);
  });
});

describe('the cost of a hint', () => {
  it('stays short when templates that repeat their argument are nested', () => {
    for (const depth of [3, 20, 32, 500]) {
      const xpath = `${'max('.repeat(depth)}//a${')'.repeat(depth)}`;
      const error = withXPath2Hint(new EngineError({ code: 'invalid-xpath', message: 'Too deep.' }), xpath);
      // Each rewrite is at most an expression's length; the sentence quotes at most two of them.
      expect((error as EngineError).message.length).toBeLessThan(6 * 2048);
    }
    const three = withXPath2Hint(
      new EngineError({ code: 'xpath-failed', message: 'x' }),
      'max(max(max(//a)))',
    );
    expect(suggested((three as EngineError).message)).toContain('[not(. < ');
  });
});
