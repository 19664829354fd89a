import { describe, expect, it } from 'vitest';
import { query } from '../../../src/engine/query/query.js';
import { engineError } from '../engine-error.js';

const library = `<?xml version="1.0"?>
<library xmlns:m="urn:meta">
  <book id="b1" lang="en"><title>Dune</title><price>9.50</price><m:isbn>111</m:isbn></book>
  <book id="b2" lang="fr"><title>Candide</title><price>55</price><!-- note --><?mark here?></book>
  <book id="b3"><title>Кобзар</title><price>60.25</price><![CDATA[raw <text>]]></book>
</library>`;

const failure = engineError;

describe('query', () => {
  it('points at the character at fault inside string(…) in the whole expression (issue 24)', () => {
    const error = engineError(() => query(library, 'string(//book[@id=])'));
    expect(error.message).toMatch(/at character 19/);
    expect(error.message).toContain('\n  string(//book[@id=])\n                    ^');
  });

  it('answers the quick-start node-set with string-values', () => {
    expect(query('<library><book><title>Dune</title></book></library>', '//title')).toEqual({
      type: 'node-set',
      count: 1,
      values: ['Dune'],
    });
  });

  it('uses the document node as context so relative paths see the root element', () => {
    expect(query(library, 'library/book/@id').values).toEqual(['b1', 'b2', 'b3']);
    expect(query(library, 'count(library)').values).toEqual(['1']);
  });

  it('returns numbers by XPath 1.0 number-to-string rules', () => {
    expect(query(library, 'count(//book)')).toEqual({ type: 'number', count: 1, values: ['3'] });
    expect(query(library, 'sum(//price)').values).toEqual(['124.75']);
    expect(query(library, '1 div 0').values).toEqual(['Infinity']);
    expect(query(library, '-1 div 0').values).toEqual(['-Infinity']);
    expect(query(library, 'number("x")').values).toEqual(['NaN']);
    expect(query(library, '0 * -1').values).toEqual(['0']);
  });

  it('formats a number by XPath 1.0 rules when the whole expression is string(NUMBER)', () => {
    expect(query(library, 'string(12345678901)')).toEqual({
      type: 'string',
      count: 1,
      values: ['12345678901'],
    });
    expect(query(library, 'string(1 div 3)').values).toEqual(['0.3333333333333333']);
    expect(query(library, 'string(count(//book))').values).toEqual(['3']);
    expect(query(library, "string(concat('a', ')'))").values).toEqual(['a)']);
    expect(query(library, 'string()').values[0]).toContain('Dune');
  });

  it('returns strings and booleans as values', () => {
    expect(query(library, 'string(//book[2]/title)')).toEqual({
      type: 'string',
      count: 1,
      values: ['Candide'],
    });
    expect(query(library, 'boolean(//book[@lang="fr"])')).toEqual({
      type: 'boolean',
      count: 1,
      values: ['true'],
    });
    expect(query(library, '//book[price > 50]/title = "Candide"').values).toEqual(['true']);
  });

  it('selects by predicate on numbers', () => {
    expect(query(library, '//book[price > 50]/title').values).toEqual(['Candide', 'Кобзар']);
  });

  it('reads comments, processing instructions and CDATA as one text node with its neighbours', () => {
    expect(query(library, '//comment()').values).toEqual([' note ']);
    expect(query(library, '//processing-instruction("mark")').values).toEqual(['here']);
    expect(query(library, 'count(//book[3]/text())').values).toEqual(['1']);
    expect(query(library, '//book[3]/text()').values).toEqual(['raw <text>']);
  });

  it('walks every axis', () => {
    expect(query(library, '//title[.="Candide"]/following::title').values).toEqual(['Кобзар']);
    expect(query(library, '//title[.="Candide"]/preceding::title').values).toEqual(['Dune']);
    expect(query(library, 'count(//price/ancestor::*)').values).toEqual(['4']);
    expect(query(library, 'name(//title[.="Dune"]/parent::*/following-sibling::*[1])').values).toEqual([
      'book',
    ]);
    expect(query(library, 'count(//book[1]/descendant-or-self::node())').values).toEqual(['7']);
    expect(query(library, 'count(/descendant::book/self::book)').values).toEqual(['3']);
    expect(query(library, 'count(//book/attribute::*)').values).toEqual(['5']);
    expect(query(library, '//book[1]/namespace::m').values).toEqual(['urn:meta']);
    expect(query(library, 'name(//price[1]/preceding-sibling::*)').values).toEqual(['title']);
    expect(query(library, 'count(//title/ancestor-or-self::*)').values).toEqual(['7']);
  });

  it('binds prefixes only from the namespaces argument', () => {
    expect(query(library, '//x:isbn', { x: 'urn:meta' }).values).toEqual(['111']);
    expect(query(library, 'count(//*[local-name()="isbn"])').values).toEqual(['1']);
    expect(query(library, 'count(//isbn)').values).toEqual(['0']);
    expect(query(library, '//x:isbn', { x: 'urn:meta', xml: 'ignored' }).count).toBe(1);
  });

  it('reports an unbound prefix naming the namespaces argument and xml_inspect', () => {
    const error = failure(() => query(library, '//m:isbn'));
    expect(error.code).toBe('unbound-prefix');
    expect(error.message).toContain('`m`');
    expect(error.message).toContain('namespaces');
    expect(error.message).toContain('xml_inspect');
  });

  it('catches an unbound prefix written after an axis name', () => {
    for (const expression of ['child::q:a', 'r/attribute::q:x', 'count(//a[self :: q:b])']) {
      expect(failure(() => query(library, expression)).code).toBe('unbound-prefix');
    }
  });

  it('refuses bindings XPath cannot use: the empty prefix, an empty URI, a prefix that is no name', () => {
    expect(failure(() => query(library, '//a', { '': 'urn:x' })).message).toContain('no default namespace');
    expect(failure(() => query(library, '//e:a', { e: '' })).message).toContain('empty URI');
    expect(failure(() => query(library, '//a', { 'a:b': 'urn:x' })).code).toBe('invalid-argument');
  });

  it('applies attribute defaults from the internal subset, and still reads XHTML with undeclared entities', () => {
    const dtd = '<!DOCTYPE a [<!ATTLIST b status CDATA "available">]><a><b/><b status="lent"/></a>';
    expect(query(dtd, '//b/@status').values).toEqual(['available', 'lent']);
    const xhtml =
      '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd"><html><p>a&nbsp;b</p></html>';
    expect(query(xhtml, 'string(//p)').values).toEqual(['ab']);
  });

  it('gives the document node the string-value of its text only, not of entity declarations', () => {
    expect(query('<!DOCTYPE a [<!ENTITY e "ENT">]><a>x&e;y</a>', 'string(/)').values).toEqual(['xENTy']);
    expect(query('<!DOCTYPE a [<!ENTITY e "ENT">]><a>x&e;y</a>', '/').values).toEqual(['xENTy']);
  });

  it('ignores prefix-like text inside string literals and axis names', () => {
    expect(query(library, 'count(child::library[contains("a:b", ":")])').values).toEqual(['1']);
  });

  it('reports the position of a syntax error', () => {
    const error = failure(() => query(library, '//book[price >'));
    expect(error.code).toBe('invalid-xpath');
    expect(error.message).toMatch(/at character \d+/);
  });

  it('stops a runaway expression by its operation budget', () => {
    const big = `<r>${'<a><b/></a>'.repeat(40_000)}</r>`;
    const error = failure(() => query(big, 'count(//*[count(//*) > 0])'));
    expect(error.code).toBe('budget-exceeded');
    expect(error.message).toContain('Narrow it');
    expect(query(big, 'count(//a)').values).toEqual(['40000']);
  });

  it('refuses variables, which cannot be bound', () => {
    expect(failure(() => query(library, '//book[@id=$id]')).code).toBe('unbound-variable');
  });

  it('reports an unknown function', () => {
    const error = failure(() => query(library, 'frobnicate(1)'));
    expect(error.code).toBe('xpath-failed');
    expect(error.message).toContain('frobnicate');
  });

  it('caps expression length and nesting before libxml2 sees them', () => {
    expect(failure(() => query(library, `count(${'1+'.repeat(1100)}1)`)).message).toContain('limit is 2048');
    expect(failure(() => query(library, `//a${'[a'.repeat(40)}${']'.repeat(40)}`)).message).toContain(
      'nests brackets',
    );
    expect(failure(() => query(library, '//book\u0000')).message).toContain('NUL');
  });

  it('reports a malformed document with line and column', () => {
    const error = failure(() => query('<r>\n  <a></b>\n</r>', '/'));
    expect(error.code).toBe('not-well-formed');
    expect(error.line).toBe(2);
    expect(error.column).toBeGreaterThan(0);
    expect(error.message).toMatch(/line 2, column \d+/);
  });

  it('sees internal entity replacement text but never external entities', () => {
    expect(query('<!DOCTYPE r [<!ENTITY e "hello">]><r>&e;</r>', 'string(/r)').values).toEqual(['hello']);
    const xxe = query('<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>', 'string(/r)');
    expect(xxe.values[0]).not.toContain('root:');
  });

  it('handles non-ASCII names and values', () => {
    expect(query('<données><élément>café ☕ 😀</élément></données>', '//élément').values).toEqual([
      'café ☕ 😀',
    ]);
    expect(query('<r>😀</r>', 'string-length(/r)').values).toEqual(['1']);
  });

  it('cuts values past the output budget while keeping the count exact', () => {
    const xml = `<r>${'<v>12345</v>'.repeat(50)}</r>`;
    const tens = `<r>${'<v>1234567890</v>'.repeat(50)}</r>`;
    // A value costs what it takes as a JSON array element, the larger of the answer's two forms:
    // `"1234567890",` is 13. The value crossing the budget ends in the cut mark (a cut id is
    // never read as a whole one)...
    expect(query(tens, '//v', {}, { maxChars: 37, maxValues: 100 })).toEqual({
      type: 'node-set',
      count: 50,
      values: ['1234567890', '1234567890', '12…[cut]'],
      truncated: true,
    });
    // ...or is left out when the mark would not fit.
    expect(query(xml, '//v', {}, { maxChars: 20, maxValues: 100 })).toEqual({
      type: 'node-set',
      count: 50,
      values: ['12345', '12345'],
      truncated: true,
    });
    expect(query(xml, '//v', {}, { maxChars: 1000, maxValues: 4 })).toMatchObject({
      count: 50,
      truncated: true,
    });
    expect(query(xml, '//v', {}, { maxChars: 1000, maxValues: 4 }).values).toHaveLength(4);
    expect(query(xml, 'string(/)', {}, { maxChars: 11, maxValues: 100 })).toEqual({
      type: 'string',
      count: 1,
      values: ['12…[cut]'],
      truncated: true,
    });
    expect(query(xml, 'count(//v)', {}, { maxChars: 1, maxValues: 1 })).toEqual({
      type: 'number',
      count: 1,
      values: ['50'],
    });
  });

  it('never cuts a surrogate pair in half at the budget', () => {
    // 108 less the cut mark's 6, the quotes and the comma would end inside the 25th 😀: the cut
    // backs off one.
    const cut = query(`<r><t>${'ab😀'.repeat(30)}</t></r>`, '//t', {}, { maxChars: 108, maxValues: 10 });
    expect(cut.truncated).toBe(true);
    expect(cut.values[0]?.isWellFormed()).toBe(true);
    expect(cut.values[0]).toHaveLength(104);
    expect(cut.values[0]?.endsWith('ab…[cut]')).toBe(true);
  });

  it('ignores an encoding declaration: the text is already decoded', () => {
    expect(query('<?xml version="1.0" encoding="ISO-8859-1"?><r>é</r>', 'string(/r)').values).toEqual(['é']);
  });
});
