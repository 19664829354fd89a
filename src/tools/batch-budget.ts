import type { BatchEntry } from '../engine/query/query.js';
import { shownCost } from '../engine/shown-cost.js';

/*
 * A batch's answer within `max_chars` in either channel (docs/adr/0051, F9). Each entry adds a
 * heading and its notes to its values, 32 times over: counted outside the budget they took a
 * 200,000-character answer to 211,705, and one asked at 100 characters to 2,609. So the engine
 * is given what the headings leave, and what the entries then take in all is counted whole, in
 * the larger of their two forms, values given back from the last entries until it fits.
 */

/** What an entry's notes take, as set aside before the engine runs: a cut note and the language's. */
const NOTES_SET_ASIDE = 120;

/** An entry's JSON beside its heading: `{"xpath":…,"type":"node-set","count":N,"values":[],…}`. */
const ENTRY_FIELDS = 60;

/**
 * What the headings (and a usual note each) take of the budget, before any value is read; at
 * most half of it, so that values short enough to need no note are still shown.
 */
export function setAside(headings: readonly string[], maxChars: number): number {
  const framing = headings.reduce(
    (sum, heading) => sum + shownCost(heading) + ENTRY_FIELDS + NOTES_SET_ASIDE,
    0,
  );
  return Math.min(framing, Math.floor(maxChars / 2));
}

/**
 * The entries cut, from the last values of the last entries back, until `costOf` all of them is
 * at most `maxChars`, and what they then take: past `maxChars` only when headings, notes and
 * the values that cannot be left out (a number, a string) are, and then the least they took.
 */
export function withinBatchBudget(
  entries: BatchEntry[],
  maxChars: number,
  costOf: (entry: BatchEntry, index: number) => number,
): { entries: BatchEntry[]; chars: number } {
  const fitted = [...entries];
  const costs = fitted.map(costOf);
  let total = costs.reduce((sum, cost) => sum + cost, 0);
  // Leaving values out adds the note that says so: the least seen is what the refusal asks for.
  let least = total;
  for (let index = fitted.length - 1; index >= 0 && total > maxChars; index--) {
    let entry = fitted[index] as BatchEntry;
    while (total > maxChars && 'values' in entry && entry.values.length > 0 && listed(entry)) {
      // Gives back at least what is over, in one step: a value's cost in its JSON form.
      let over = total - maxChars;
      let keep = entry.values.length;
      while (keep > 0 && over > 0) over -= shownCost(entry.values[--keep] as string);
      entry = {
        ...entry,
        values: entry.values.slice(0, keep),
        ...(entry.lines ? { lines: entry.lines.slice(0, keep) } : {}),
        truncated: true,
      };
      fitted[index] = entry;
      total -= costs[index] as number;
      costs[index] = costOf(entry, index);
      total += costs[index] as number;
      least = Math.min(least, total);
    }
  }
  return { entries: fitted, chars: total > maxChars ? least : total };
}

/** Values that can be left out with a count that stays true: a node-set's or a sequence's. */
function listed(entry: BatchEntry): boolean {
  return 'type' in entry && (entry.type === 'node-set' || entry.type === 'sequence');
}
