import { CUT_MARK } from './marks.js';

/*
 * What a value costs of the output budget, and a value cut to a cost. Plain string work, with no
 * libxml2 behind it: the main thread prices a batch's answer with it (src/tools/batch-budget.ts),
 * and libxml2-wasm loads only on the engine's workers (docs/adr/0025).
 */

/** What one value takes of the budget: its length as a JSON array element. */
export function shownCost(value: string): number {
  return JSON.stringify(value).length + 1;
}

/**
 * `value` cut so that, with CUT_MARK after it, it costs at most `room` (`shownCost`); '' when not
 * even the mark fits. Each round removes as many units as the escapes overran, so it ends within
 * a few rounds whatever the value.
 */
export function cutToCost(value: string, room: number): string {
  let keep = room - CUT_MARK.length - 3;
  while (keep > 0) {
    const cut = cutAt(value, keep) + CUT_MARK;
    const over = shownCost(cut) - room;
    if (over <= 0) return cut;
    keep -= over;
  }
  return '';
}

/** The first `length` UTF-16 units, one fewer if the cut would split a surrogate pair. */
export function cutAt(value: string, length: number): string {
  if (length <= 0) return '';
  const code = value.charCodeAt(length - 1);
  return value.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}
