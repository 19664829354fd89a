import { describe, expect, it } from 'vitest';
import { inspect } from '../../../src/engine/inspect/inspect.js';
import { KeySet, ValueProfile } from '../../../src/engine/inspect/value-profile.js';
import { MAX_EXACT_DISTINCT, MAX_PROFILE_VALUES } from '../../../src/limits.js';

const encoder = new TextEncoder();
const profileOf = (values: string[]): ValueProfile => {
  const profile = new ValueProfile();
  for (const value of values) {
    const bytes = encoder.encode(value);
    profile.add(bytes, 0, bytes.length);
  }
  return profile;
};
const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `v${from + i}`);

describe('distinct counts and near-duplicate values', () => {
  it('counts distinct values exactly past the kept ones, up to MAX_EXACT_DISTINCT more, then estimates', () => {
    const exact = profileOf([...range(500), ...range(500)]);
    expect(exact.kept.size).toBe(MAX_PROFILE_VALUES);
    expect(exact.distinct()).toEqual({ count: 500, estimated: false });
    const past = profileOf(range(MAX_PROFILE_VALUES + MAX_EXACT_DISTINCT + 1));
    expect(past.distinct().estimated).toBe(true);
    expect(past.others).toBeNull();
  });

  it('stays exact through a merge that overlaps, and estimated once either side was', () => {
    const merged = profileOf(range(300));
    merged.merge(profileOf(range(300, 200)));
    expect(merged.distinct()).toEqual({ count: 500, estimated: false });
    const mixed = profileOf(range(40));
    mixed.merge(profileOf(range(2_000)));
    expect(mixed.distinct().estimated).toBe(true);
  });

  it('keeps a set of keys, each once, and refuses past its cap', () => {
    const set = new KeySet();
    for (let i = 0; i < MAX_EXACT_DISTINCT; i++) expect(set.add(i * 7919 + 2 ** 40)).toBe(true);
    expect(set.add(2 ** 40)).toBe(true);
    expect(set.size).toBe(MAX_EXACT_DISTINCT);
    expect([...set.keys()].sort((a, b) => a - b)[0]).toBe(2 ** 40);
    expect(set.add(1)).toBe(false);
  });

  it('says which values differ only in case or edge white space, the filter trap', () => {
    const result = inspect(
      `<log>${['IN', 'in', 'OUT', 'IN', 'OUT ', 'x'].map((d) => `<move dir="${d}"/>`).join('')}</log>`,
    );
    expect(result.values['/log/move/@dir']).toBe(
      'IN×2 in×1 OUT×1 "OUT "×1 x×1; 1 with white space at an edge; IN/in, OUT/"OUT " differ only in case or edge white space',
    );
    expect(inspect('<r><s>Yes</s><s>yes</s></r>').values['/r/s']).toBe(
      '2 distinct: Yes yes; Yes/yes differ only in case',
    );
  });

  it('names no variants among values cut short', () => {
    const long = 'a'.repeat(60);
    expect(inspect(`<r><s>${long}</s><s>${long.toUpperCase()}</s></r>`).values['/r/s']).not.toContain(
      'differ only',
    );
  });
});
