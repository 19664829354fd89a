/**
 * mulberry32: a small, well-mixed 32-bit generator of floats in [0, 1). Everything generated
 * from a seed (benchmark documents, fuzzed JSON) is the same on every run, so a failure
 * reproduces from its seed.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
