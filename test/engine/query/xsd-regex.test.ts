/**
 * fn:matches, fn:replace and fn:tokenize on one XSD-regex engine (issue 33 F4, ADR 0048):
 * fontoxpath handed `replace` and `tokenize` to JavaScript's RegExp, which backtracks, reads XSD
 * syntax as JavaScript and accepts JavaScript-only syntax.
 */
import { describe, expect, it } from 'vitest';
import { query } from '../../../src/engine/query/query.js';
import { keptPatterns, MAX_PATTERN_STATES, replace, tokenize } from '../../../src/engine/query/xsd-regex.js';
import { engineError } from '../engine-error.js';

const values = (xpath: string) => query('<r><s>The Quick brown fox</s></r>', xpath).values;
const one = (xpath: string) => values(xpath)[0];

describe('one XSD-regex engine for matches, replace and tokenize', () => {
  it('reads XSD syntax: categories, blocks, class subtraction, \\i \\c', () => {
    expect(one("replace('ABc', '\\p{Lu}', 'x')")).toBe('xxc');
    expect(one("replace('education', '[a-z-[aeiou]]', '_')")).toBe('e_u_a_io_');
    expect(one("tokenize('a1b22c', '\\p{Nd}+')")).toBe('a');
    expect(values("tokenize('a1b22c', '\\p{Nd}+')")).toEqual(['a', 'b', 'c']);
    expect(one("replace('café', '\\p{IsBasicLatin}', '.')")).toBe('...é');
    expect(one("replace('x:y 1', '\\i\\c*', 'N')")).toBe('N 1');
    expect(one("matches('Ab', '^\\p{Lu}\\p{Ll}$')")).toBe('true');
  });

  it('refuses what XSD regular expressions lack, as invalid (FORX0002)', () => {
    for (const xpath of [
      "replace('ab', '(?<=a)b', 'x')",
      "tokenize('ab', '(?=b)')",
      "matches('ab', '\\bx')",
    ]) {
      const error = engineError(() => query('<r/>', xpath));
      expect(error.message, xpath).toMatch(/FORX0002/);
    }
  });

  it('never backtracks: (a+)+b over 40 a', () => {
    const as = 'a'.repeat(40);
    expect(one(`replace('${as}', '(a+)+b', 'x')`)).toBe(as);
    expect(values(`tokenize('${as}c${as}', '(a+)+b')`)).toEqual([`${as}c${as}`]);
    expect(one(`matches('${as}', '^(a|aa)+$')`)).toBe('true');
    // What the pattern cost is linear in the input: 200,000 characters answer.
    const long = `string-join((1 to 100000) ! 'a') || 'c'`;
    expect(one(`string-length(replace(${long}, '(a+)+b', 'x'))`)).toBe('100001');
  });

  it('takes the match XPath asks for: leftmost, then first alternative, greedy or reluctant', () => {
    expect(replace('ab', 'a|ab', 'x', '')).toBe('xb');
    expect(replace('ab', 'ab|a', 'x', '')).toBe('x');
    expect(replace('<a><b>', '<.*>', '_', '')).toBe('_');
    expect(replace('<a><b>', '<.*?>', '_', '')).toBe('__');
    expect(replace('aaa', 'a{2,3}?', 'x', '')).toBe('xa');
    expect(replace('abcd', '(?:ab)(c)', '[$1]', '')).toBe('[c]d');
  });

  it('replaces groups as XPath says: $0, $N, a group that did not match, \\$ and \\\\', () => {
    expect(one("replace('2025-03-01', '(\\d+)-(\\d+)-(\\d+)', '$3/$2/$1')")).toBe('01/03/2025');
    expect(replace('abc', 'b', '[$0]', '')).toBe('a[b]c');
    expect(replace('ac', 'a(b)?c', '[$1]', '')).toBe('[]');
    expect(replace('ab', '(a)', '$12', '')).toBe('a2b');
    expect(replace('ab', 'a', '\\$\\\\', '')).toBe('$\\b');
    expect(() => replace('ab', 'a', '$', '')).toThrow(/FORX0004/);
    expect(() => replace('ab', 'a', '\\n', '')).toThrow(/FORX0004/);
  });

  it('refuses a pattern that matches the empty string in replace and tokenize (FORX0003)', () => {
    expect(() => replace('abc', 'x*', '-', '')).toThrow(/FORX0003/);
    expect(() => tokenize('abc', '^', '')).toThrow(/FORX0003/);
    expect(one("matches('abc', 'x*')")).toBe('true');
  });

  it('tokenizes as XPath does: empty strings at the edges, none for an empty input', () => {
    expect(tokenize(',a,,b,', ',', '')).toEqual(['', 'a', '', 'b', '']);
    expect(tokenize('', ',', '')).toEqual([]);
    expect(values("tokenize('  a  b ')")).toEqual(['a', 'b']);
    expect(tokenize('a😀b😀c', '😀', '')).toEqual(['a', 'b', 'c']);
  });

  it('takes flags in all three: i, m, s, x, q', () => {
    expect(one("matches('ABC', 'b', 'i')")).toBe('true');
    expect(one("replace('Hello hello', 'HELLO', 'x', 'i')")).toBe('x x');
    expect(values("tokenize('aXbxc', 'x', 'i')")).toEqual(['a', 'b', 'c']);
    expect(replace('a\nb', '^b$', 'x', 'm')).toBe('a\nx');
    expect(replace('a\nb', '^b$', 'x', '')).toBe('a\nb');
    expect(replace('a\nb', 'a.b', 'x', 's')).toBe('x');
    expect(replace('a\nb', 'a.b', 'x', '')).toBe('a\nb');
    expect(replace('abc', 'a b [ ]', 'x', 'x')).toBe('abc');
    expect(replace('ab c', 'a b [ ]', 'x', 'x')).toBe('xc');
    expect(replace('a.b*', '.b*', '$1', 'q')).toBe('a$1');
    expect(() => replace('a', 'a', 'x', 'z')).toThrow(/FORX0001/);
  });

  it('bounds a pattern, and keeps none once the call is done', () => {
    expect(() => replace('a', `a{1,${MAX_PATTERN_STATES}}`, 'x', '')).toThrow(/FORX0002.*too large/);
    query('<r/>', "count((1 to 50) ! replace('ab', 'a{1,' || . || '}b', 'x'))");
    expect(keptPatterns()).toBe(0);
  });
});
