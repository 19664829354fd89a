import { describe, expect, it } from 'vitest';
import { formatNumber } from '../../../src/engine/query/format-number.js';

/* fn:format-number with the default decimal format (ADR 0056); QT3's fn-format-number set runs it too. */

describe('formatNumber', () => {
  it('writes the figures models report: fixed decimals, thousands, percentages', () => {
    expect(formatNumber(9.4, '0.00')).toBe('9.40');
    expect(formatNumber(1015 / 108, '#,##0.00')).toBe('9.40');
    expect(formatNumber(7688775997, '#,##0')).toBe('7,688,775,997');
    expect(formatNumber(0.397039, '0.0%')).toBe('39.7%');
    expect(formatNumber(0.5, '#.00')).toBe('.50');
    expect(formatNumber(0, '#')).toBe('0');
    expect(formatNumber(1234.5, '$#,##0.00 total')).toBe('$1,234.50 total');
  });

  it('rounds half to even on the decimal digits, not on the double', () => {
    expect(formatNumber(2.675, '0.00')).toBe('2.68');
    expect(formatNumber(2.665, '0.00')).toBe('2.66');
    expect(formatNumber(0.005, '0.00')).toBe('0.00');
    expect(formatNumber(9.995, '0.00')).toBe('10.00');
    expect(formatNumber(0.0004, '0.00')).toBe('0.00');
  });

  it('uses the negative sub-picture, or a minus before the prefix', () => {
    expect(formatNumber(-1234.5, '#,##0.0;(#,##0.0)')).toBe('(1,234.5)');
    expect(formatNumber(-1234.5, '$#,##0.0')).toBe('-$1,234.5');
    expect(formatNumber(-0, '0')).toBe('-0');
  });

  it('writes NaN, an empty value, and infinities as XPath does', () => {
    expect(formatNumber(Number.NaN, '0.00')).toBe('NaN');
    expect(formatNumber(null, '0.00')).toBe('NaN');
    expect(formatNumber(Number.NEGATIVE_INFINITY, '0.0%')).toBe('-Infinity%');
    expect(formatNumber(1e308, '0%')).toBe('Infinity%');
  });

  it('groups irregular positions where written, regular ones every n digits', () => {
    // Irregular positions are not repeated: only those written.
    expect(formatNumber(12345678, '#,##,##0')).toBe('123,45,678');
    expect(formatNumber(12345678, '#,##,##,##0')).toBe('1,23,45,678');
    expect(formatNumber(3000000, ',##0')).toBe('3,000,000');
    expect(formatNumber(1.23456, '0.000,00')).toBe('1.234,56');
  });

  it('writes a mantissa and an exponent', () => {
    expect(formatNumber(1234.5678, '0.00e0')).toBe('1.23e3');
    expect(formatNumber(0.000123, '0.0e00')).toBe('1.2e-04');
    expect(formatNumber(0.99999999, '0.0e0')).toBe('10.0e-1');
  });

  it('reads a picture an expression built 350,000 characters long in one pass', () => {
    const picture = `#${',###'.repeat(50_000)}.${'0'.repeat(150_000)}`;
    const written = formatNumber(1234567.5, picture);
    expect(written.length).toBe('1,234,567.'.length + 150_000);
    expect(written.slice(0, 12)).toBe('1,234,567.50');
    expect(() => formatNumber(1, `0${' '.repeat(200_000)}0`)).toThrow(/FODF1310/);
  });

  it('refuses a picture the specification refuses, saying why, and a decimal format XPath cannot declare', () => {
    for (const [picture, why] of [
      ['0.0.0', 'more than one "."'],
      ['0;0;0', 'more than one ";"'],
      ['#0#', '"#" follows a digit'],
      ['0.#0', 'digit follows a "#"'],
      ['#,.0', '","'],
      ['#,,##0', '","'],
      ['0%%', 'more than one %'],
      ['0 0', 'stands between the digits'],
      ['abc', 'no digit'],
      ['0%e0', 'stands between'],
    ])
      expect(() => formatNumber(1, picture as string), picture).toThrow(
        new RegExp(`^FODF1310: .*${(why as string).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      );
    expect(() => formatNumber(1, '0', 'money')).toThrow(/^FODF1280/);
  });
});
