import { describe, expect, it } from 'vitest';
import { tokenize } from '../../../src/engine/query/xpath-tokens.js';

const nameTests = (expression: string) =>
  tokenize(expression).flatMap((token) =>
    token.kind === 'name-test'
      ? [`${token.axis} ${token.prefix ? `${token.prefix}:` : ''}${token.local}`]
      : [],
  );
const functions = (expression: string) =>
  tokenize(expression).flatMap((token) => (token.kind === 'function' ? [token.name] : []));

describe('the XPath 1.0 lexer behind the hints', () => {
  it('finds element and attribute name tests with their prefixes', () => {
    expect(nameTests('count(//a:entry/title[@xml:lang])')).toEqual([
      'element a:entry',
      'element title',
      'attribute xml:lang',
    ]);
    expect(nameTests('//s:use/@xlink:href | child::b/attribute::c')).toEqual([
      'element s:use',
      'attribute xlink:href',
      'element b',
      'attribute c',
    ]);
    expect(nameTests('//a:* | @* | namespace::x')).toEqual(['element a:*', 'attribute *', 'namespace x']);
  });

  it('tells operators from names by what precedes them (XPath 1.0 §3.7)', () => {
    expect(nameTests('div div div')).toEqual(['element div', 'element div']);
    expect(nameTests('//and[or and mod]')).toEqual(['element and', 'element or', 'element mod']);
    expect(nameTests('//p * 2 + //q[* = 1]')).toEqual(['element p', 'element q', 'element *']);
  });

  it('sees function calls and node types, and nothing inside string literals', () => {
    expect(functions("lower-case(//name) = 'entry(x)' and fn:max (//p) and text()")).toEqual([
      'lower-case',
      'fn:max',
      'text',
    ]);
    expect(nameTests('//x[local-name() = \'entry\' and . = "a:b"]')).toEqual(['element x']);
  });

  it('keeps each name test at its place in the expression', () => {
    const expression = 'count( //entry )';
    const test = tokenize(expression).find((token) => token.kind === 'name-test');
    expect(test && expression.slice(test.start, test.end)).toBe('entry');
  });

  it('reads numbers, variables and unknown characters without losing its place', () => {
    expect(nameTests('1.5 + .5 + $v + //a # //b')).toEqual(['element a', 'element b']);
  });
});
