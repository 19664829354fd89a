import { MAX_LISTED_VIOLATIONS, MAX_VIOLATION_TEXT_CHARS, VIOLATION_OUTPUT_CHARS } from '../../limits.js';
import type { NodeRef } from '../libxml2/tree.js';
import type { RawViolation } from '../libxml2/violation-sink.js';

export interface Violation {
  message: string;
  /** Path to the element concerned, e.g. `/order/item[3]/price`. */
  path: string | null;
  line: number | null;
}

export type ValidationOutcome =
  | { kind: 'valid' }
  /** `total` counts every violation; `violations` are the first ones, within the output budget. */
  | { kind: 'invalid'; total: number; violations: Violation[]; truncated: boolean }
  /** libxml2 gave up before the end (it returned < 0); `reports` says why. */
  | { kind: 'failed'; reports: Violation[] };

interface Collection {
  total: number;
  listed: Violation[];
  chars: number;
  /** A message or path was cut to MAX_VIOLATION_TEXT_CHARS. */
  cut: boolean;
  /** The output budget is spent: later violations are only counted. */
  full: boolean;
}

/**
 * Runs a validation in any schema language (`validation` hands each violation libxml2 reports to
 * its argument and returns libxml2's status). Every violation is counted; message and path are
 * read only for those the answer lists, so collecting stays linear in the number of violations.
 */
export function runSchema(
  validation: (onViolation: (violation: RawViolation) => void) => number,
  pathOf: (node: NodeRef) => string,
): ValidationOutcome {
  const collection: Collection = { total: 0, listed: [], chars: 0, cut: false, full: false };
  const status = validation((violation) => collect(collection, violation, pathOf));
  if (status === 0) return { kind: 'valid' };
  if (status < 0) return { kind: 'failed', reports: collection.listed };
  const { total, listed, cut } = collection;
  return { kind: 'invalid', total, violations: listed, truncated: cut || total > listed.length };
}

function collect(collection: Collection, violation: RawViolation, pathOf: (node: NodeRef) => string): void {
  collection.total++;
  if (collection.full || collection.listed.length >= MAX_LISTED_VIOLATIONS) {
    collection.full = true;
    return;
  }
  const fullMessage = violation.message();
  const node = violation.node();
  const fullPath = node === 0 ? null : pathOf(node);
  const message = cut(fullMessage);
  const path = fullPath === null ? null : cut(fullPath);
  const line = violation.line();
  const listed = { message, path, line: line > 0 ? line : null };
  // What it takes in the larger of the answer's forms, structuredContent's JSON (its text's
  // `N. line L, PATH: MESSAGE` is shorter than the keys and quotes): docs/adr/0049.
  const chars = JSON.stringify(listed).length + 1;
  if (collection.chars + chars > VIOLATION_OUTPUT_CHARS) {
    collection.full = true;
    return;
  }
  collection.listed.push(listed);
  collection.chars += chars;
  if (message !== fullMessage || path !== fullPath) collection.cut = true;
}

/**
 * At most MAX_VIOLATION_TEXT_CHARS UTF-16 units, the last of them `…` when cut (never half a
 * surrogate pair), so a reader knows the quoted value goes on.
 */
export function cut(text: string): string {
  if (text.length <= MAX_VIOLATION_TEXT_CHARS) return text;
  let end = MAX_VIOLATION_TEXT_CHARS - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}
