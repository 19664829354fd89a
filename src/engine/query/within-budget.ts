import { MIN_NODE_MARKUP_CHARS } from '../../limits.js';
import { lineOf, serializeNode } from '../libxml2/serialize.js';
import type { NodeRef } from '../libxml2/tree.js';
import { CUT_MARK } from '../marks.js';
import { cutToCost, shownCost } from '../shown-cost.js';
import type { PathWriter } from './node-path.js';
import type { OutputBudget, QueryResult } from './result.js';

/*
 * Reading an answer's items within the output budget, the same for either evaluator (XPath 1.0's
 * node-sets, XPath 3.1's sequences): values past the budget are never read.
 *
 * A client shows its model either the text or the JSON of structuredContent (docs/adr/0049), so
 * a value costs what it takes in the larger of the two: as a JSON string, its quotes, escapes and
 * the comma after it (`shownCost`, src/engine/shown-cost.ts). The text's form (the value and a
 * line break) is never longer.
 */

/**
 * Reads values until the budget is spent; values past it are never even read from libxml2,
 * which keeps a `//record` on an 8 MiB document cheap. The value that crosses the character
 * budget is cut at it and ends in CUT_MARK, so a cut id is never read as a whole one.
 */
export function withinBudget(
  size: number,
  valueAt: (index: number) => string,
  budget: OutputBudget,
): Pick<QueryResult, 'values' | 'truncated'> {
  const values: string[] = [];
  let chars = 0;
  for (let i = 0; i < size; i++) {
    const remaining = budget.maxChars - chars;
    if (values.length >= budget.maxValues || remaining <= 0) return { values, truncated: true };
    const value = valueAt(i);
    // A value longer than what is left cannot fit whatever its escapes: no need to write its JSON.
    const cost = value.length >= remaining ? Number.POSITIVE_INFINITY : shownCost(value);
    if (cost > remaining) {
      const cut = cutToCost(value, remaining);
      if (cut !== '') values.push(cut);
      return { values, truncated: true };
    }
    values.push(value);
    chars += cost;
  }
  return { values };
}

/**
 * Each node as markup, in document order, cut at its share of what is left of the budget: the
 * characters left over the nodes still to show (at most maxValues of them), but at least
 * MIN_NODE_MARKUP_CHARS while they last. A small node leaves its unused share to the nodes after
 * it. Serialising stops at the share, so a huge subtree costs no more than its share.
 */
export function markupWithinBudget(
  size: number,
  nodeAt: (index: number) => NodeRef,
  budget: OutputBudget,
): Pick<QueryResult, 'values' | 'truncated'> {
  const values: string[] = [];
  const shown = Math.min(size, budget.maxValues);
  let chars = 0;
  let truncated = false;
  for (let i = 0; i < size; i++) {
    const remaining = budget.maxChars - chars;
    const share = Math.min(remaining, Math.max(MIN_NODE_MARKUP_CHARS, Math.floor(remaining / (shown - i))));
    if (i >= shown || share <= CUT_MARK.length) return { values, truncated: true };
    const markup = serializeNode(nodeAt(i), share);
    // Markup's quotes are escaped in JSON: a node that fits as text may still overrun its share.
    const cut = markup.cut || shownCost(markup.text) > share;
    const value = cut ? cutToCost(markup.text, share) : markup.text;
    if (value === '') return { values, truncated: true };
    truncated ||= cut;
    values.push(value);
    chars += shownCost(value);
  }
  return truncated ? { values, truncated: true } : { values };
}

/**
 * Each node's location path and line. A path is never cut (half a path selects something
 * else): one that does not fit ends the list.
 */
export function pathsWithinBudget(
  size: number,
  nodeAt: (index: number) => NodeRef,
  budget: OutputBudget,
  paths: PathWriter,
): Pick<QueryResult, 'values' | 'lines' | 'truncated'> {
  const values: string[] = [];
  const lines: number[] = [];
  let chars = 0;
  for (let i = 0; i < size; i++) {
    if (values.length >= budget.maxValues) return { values, lines, truncated: true };
    const node = nodeAt(i);
    const path = paths.pathOf(node);
    const line = lineOf(node) ?? 0;
    // The larger of the path as a JSON string beside its line as a number, and the text's
    // `PATH (line N)` line: the text's 7 characters more than the JSON's comma cover both.
    chars += shownCost(path) + String(line).length + 7;
    if (chars > budget.maxChars) return { values, lines, truncated: true };
    values.push(path);
    lines.push(line);
  }
  return { values, lines };
}
