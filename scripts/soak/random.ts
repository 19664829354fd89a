import { seededRandom } from '../../test/support/seeded-random.js';

export interface Random {
  next(): number;
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number;
  pick<T>(list: readonly T[]): T;
  chance(p: number): boolean;
}

/** The tests' seeded generator with the draws the call mix makes, so call i is the same call on every run. */
export function rng(seed: number): Random {
  const next = seededRandom(seed);
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T,
    chance: (p) => next() < p,
  };
}

/** A seed for call `index` that does not depend on the order calls run in. */
export const callSeed = (seed: number, index: number): number =>
  (Math.imul(seed ^ 0x9e3779b9, 2654435761) + index * 40503) >>> 0;
