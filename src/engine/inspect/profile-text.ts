import { CUT_MARK } from '../marks.js';
import { visibleJson } from '../visible-json.js';
import type { KeptValue, ValueProfile } from './value-profile.js';

/** Values listed one by one, with their counts, when there are at most this many… */
const FEW_VALUES = 8;
/** …or when the first FEW_VALUES of them hold at least this share of the occurrences. */
const MOST = 0.9;
/** Examples given of a field with many distinct values. */
const EXAMPLES = 2;

/** A value that reads the same bare: no space, quote, comma, `×` or control character, not empty. */
const BARE = /^[^\s"'×,;…\\\p{C}]+$/u;

/**
 * A field's values in one line of the outline's notation (docs/behaviour.md §2, xml_inspect):
 * - few distinct values: each with its count, most frequent first (`L×7063 E×608 A×124`), or
 *   `3 distinct: a b c` when each occurs once;
 * - all numbers: `integers 0–499` or `numbers 0.04–999.97`, the least and greatest as written,
 *   with how many distinct;
 * - all dates: `dates 2010-01-03 to 2024-12-28`, with how many distinct;
 * - every value kept (at most MAX_PROFILE_VALUES): how many distinct, the most frequent with counts;
 * - otherwise how many distinct of how many (`≈`: estimated, past MAX_EXACT_DISTINCT more than
 *   those kept), and two examples.
 * Then what matters for a comparison: how many are empty, padded with white space, or hold markup,
 * and which kept values differ only in case or edge white space (`IN/in differ only in case`).
 * A value is written bare when it reads the same so, otherwise as a JSON string; one longer than
 * the kept characters ends in the cut mark after its closing quote. `occurrences` counts the
 * field's elements, which for a leaf includes elements without any text (counted empty here).
 */
export function profileText(profile: ValueProfile, occurrences: number, cap: number): string {
  const unrecorded = Math.max(0, occurrences - profile.count);
  const total = profile.count + unrecorded;
  const empty = profile.empty + unrecorded;
  const kept = [...profile.kept.values()];
  const distinct = profile.distinct();
  // The counts of the values listed are known only while every value was kept.
  const allKept = profile.sketch === undefined;
  const distinctCount = distinct.count + (unrecorded > 0 && profile.empty === 0 ? 1 : 0);
  const notes: string[] = [];
  let head: string;
  const values = countedValues(profile, unrecorded);
  const few =
    allKept &&
    (values.length <= FEW_VALUES ||
      values.slice(0, FEW_VALUES).reduce((sum, value) => sum + value.count, 0) >= MOST * total);
  const nonEmpty = total - empty;
  const counts = `${distinctWords(distinctCount, distinct.estimated, total)} of ${total}`;
  if (few && values.every((value) => value.count === 1) && values.length > 1) {
    head = `${values.length} distinct: ${listed(values, cap, false)}`;
  } else if (few) {
    head = listed(values, cap, total > 1);
  } else if (nonEmpty > 0 && profile.numbers === nonEmpty) {
    const kind = profile.integers === nonEmpty ? 'integers' : 'numbers';
    head = `${kind} ${range(profile.leastText, profile.greatestText)}, ${counts}`;
    if (empty > 0) notes.push(`${empty} empty`);
  } else if (nonEmpty > 0 && profile.dates === nonEmpty) {
    head = `dates ${profile.firstDate} to ${profile.lastDate}, ${counts}`;
    if (empty > 0) notes.push(`${empty} empty`);
  } else if (allKept) {
    // Every value was kept: the most frequent with their counts, and how many more.
    head = `${counts}: ${listed(values, cap, true)}`;
  } else {
    const examples = kept
      .filter((value) => value.text !== '')
      .slice(0, EXAMPLES)
      .map(written)
      .join(', ');
    head = `${counts}${examples === '' ? '' : `, e.g. ${examples}`}`;
    if (empty > 0) notes.push(`${empty} empty`);
  }
  if (profile.padded > 0) notes.push(`${profile.padded} with white space at an edge`);
  if (profile.markup > 0) notes.push(`${profile.markup} holding markup`);
  const variants = variantsOf(values);
  const noted = notes.length === 0 ? head : `${head}; ${notes.join(', ')}`;
  return variants === '' ? noted : `${noted}; ${variants}`;
}

/** The kept values most frequent first (first seen first among equals), elements without text as `""`. */
function countedValues(profile: ValueProfile, unrecorded: number): KeptValue[] {
  const values = [...profile.kept.values()].map((value) => ({ ...value }));
  if (unrecorded > 0) {
    const empty = values.find((value) => value.text === '' && !value.cut);
    if (empty) empty.count += unrecorded;
    else values.push({ text: '', cut: false, count: unrecorded, high: 0, low: 0 });
  }
  return values.sort((a, b) => b.count - a.count);
}

/** Groups of variants named, at most. */
const VARIANT_GROUPS = 3;
const EDGE_SPACE = /^[ \t\r\n]+|[ \t\r\n]+$/g;
const AT_EDGE = /^[ \t\r\n]|[ \t\r\n]$/;

/**
 * The kept values that differ only in case or in white space at an edge (`IN/in`, `test/" test "`):
 * the filter that matches one misses the others. Values cut short are left out, being uncertain.
 */
function variantsOf(values: KeptValue[]): string {
  const groups = new Map<string, KeptValue[]>();
  for (const value of values) {
    if (value.cut) continue;
    const folded = value.text.replace(EDGE_SPACE, '').toLowerCase();
    const group = groups.get(folded);
    if (group) group.push(value);
    else groups.set(folded, [value]);
  }
  const variants = [...groups.values()].filter((group) => group.length > 1);
  if (variants.length === 0) return '';
  let byCase = false;
  let bySpace = false;
  for (const group of variants) {
    const trimmed = new Set(group.map((value) => value.text.replace(EDGE_SPACE, '')));
    if (trimmed.size > 1) byCase = true;
    if (trimmed.size < group.length || group.some((value) => AT_EDGE.test(value.text))) bySpace = true;
  }
  const named = variants
    .slice(0, VARIANT_GROUPS)
    .map((group) => group.map(written).join('/'))
    .join(', ');
  const more = variants.length > VARIANT_GROUPS ? ` …+${variants.length - VARIANT_GROUPS} more` : '';
  const how = byCase && bySpace ? 'case or edge white space' : byCase ? 'case' : 'edge white space';
  return `${named}${more} differ only in ${how}`;
}

function listed(values: KeptValue[], cap: number, counted: boolean): string {
  const words: string[] = [];
  let length = 0;
  for (const [index, value] of values.entries()) {
    const word = `${written(value)}${counted ? `×${value.count}` : ''}`;
    if (index >= FEW_VALUES || length + word.length + 1 > cap) {
      const rest = values.slice(index).reduce((sum, other) => sum + other.count, 0);
      words.push(`…+${values.length - index} more (${rest} occurrences)`);
      break;
    }
    length += word.length + 1;
    words.push(word);
  }
  return words.join(' ');
}

function written(value: KeptValue): string {
  return writtenValue(value.text, value.cut);
}

/**
 * A value as the outline writes it: bare when it reads the same so, otherwise a JSON string, and
 * the cut mark after the closing quote when `text` is only its start. The hints after an empty
 * answer write values so too (query/field-values-hint.ts).
 */
export function writtenValue(text: string, cut: boolean): string {
  const quoted = cut || !BARE.test(text) ? visibleJson(text) : text;
  return cut ? `${quoted}${CUT_MARK}` : quoted;
}

function range(least: string, greatest: string): string {
  return least.startsWith('-') || greatest.startsWith('-')
    ? `${least} to ${greatest}`
    : `${least}–${greatest}`;
}

/** Estimates in two significant digits (their error is some 6%), never more than the values. */
function distinctWords(count: number, estimated: boolean, total: number): string {
  if (!estimated || count < 100) return `${estimated ? '≈' : ''}${count} distinct`;
  const scale = 10 ** (Math.floor(Math.log10(count)) - 1);
  return `≈${Math.min(total, Math.round(count / scale) * scale)} distinct`;
}
