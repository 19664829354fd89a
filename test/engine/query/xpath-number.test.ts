import { describe, expect, it } from 'vitest';
import { xpathNumberToString } from '../../../src/engine/query/xpath-number.js';

describe('xpathNumberToString', () => {
  it.each([
    [2, '2'],
    [-0, '0'],
    [0.5, '0.5'],
    [-12.25, '-12.25'],
    [1e21, '1000000000000000000000'],
    [1.5e-7, '0.00000015'],
    [-2.5e22, '-25000000000000000000000'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [Number.NEGATIVE_INFINITY, '-Infinity'],
  ])('formats %s as %s', (value, text) => {
    expect(xpathNumberToString(value)).toBe(text);
  });
});
