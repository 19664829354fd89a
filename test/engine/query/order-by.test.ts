/**
 * XQuery's `order by`, sorted by a patch to fontoxpath in n log n (ADR 0055, addendum 2): the
 * order the specification defines, tested through the server's query path.
 */
import { describe, expect, it } from 'vitest';
import { query } from '../../../src/engine/query/query.js';

const RECORDS =
  '<d><r id="a" n="3"/><r id="b"/><r id="c" n="x"/><r id="d" n="1"/><r id="e" n="3"/><r id="f" n="10"/></d>';
const values = (expression: string, xml = RECORDS) => query(xml, expression).values;

describe('order by', () => {
  it('orders numbers ascending and descending, equal keys in their input order either way', () => {
    expect(
      values('for $r in //r[@n castable as xs:double] order by number($r/@n) return string($r/@id)'),
    ).toEqual(['d', 'a', 'e', 'f']);
    expect(
      values(
        'for $r in //r[@n castable as xs:double] order by number($r/@n) descending return string($r/@id)',
      ),
    ).toEqual(['f', 'a', 'e', 'd']);
  });

  it('orders by several keys, each with its direction, ties of all in their input order', () => {
    const ranked =
      'for $r in //r order by exists($r/@n) descending, ($r/@n castable as xs:double) descending, number($r/@n) descending, $r/@id return string($r/@id)';
    expect(values(ranked)).toEqual(['f', 'a', 'e', 'd', 'c', 'b']);
    expect(
      values('for $r in //r order by string-length($r/@n), $r/@id descending return string($r/@id)'),
    ).toEqual(['b', 'e', 'd', 'c', 'a', 'f']);
  });

  it('puts the empty sequence and NaN first with empty least, last with empty greatest', () => {
    const ids = (spec: string) =>
      values(`for $r in //r let $k := $r/@n ! number(.) order by $k ${spec} return string($r/@id)`);
    expect(ids('empty least')).toEqual(['b', 'c', 'd', 'a', 'e', 'f']);
    expect(ids('empty greatest')).toEqual(['d', 'a', 'e', 'f', 'c', 'b']);
  });

  it('orders texts by code point, a text of digits among them too', () => {
    // fontoxpath took any text that is not a number for NaN: 'abc' came before '10'.
    expect(values("for $s in ('abc', '10', 'B', 'b') order by $s return $s")).toEqual([
      '10',
      'B',
      'abc',
      'b',
    ]);
    expect(values('for $r in //r order by $r/@n return string($r/@id)')).toEqual([
      'b',
      'd',
      'f',
      'a',
      'e',
      'c',
    ]);
  });

  it('refuses keys that do not compare, and a key of two items', () => {
    expect(() => values("for $v in (1, 'a') order by $v return $v")).toThrow(/XPTY0004/);
    expect(() => values('for $r in /d order by $r/r/@n return 1')).toThrow(/XPTY0004/);
  });
});
