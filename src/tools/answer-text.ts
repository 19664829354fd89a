import type { QueryResult } from '../engine/query/query.js';
import { visibleJson } from '../engine/visible-json.js';

/**
 * The text of one answer (docs/behaviour.md §2): a scalar as itself; the empty string and an
 * empty node-set in words; several nodes (or items of an XPath 3.1 sequence) under a line that
 * gives their count, then `nodeLines`. The sentences about it are `valueNotes`.
 */
export function answerText(result: QueryResult, xpath: string): string {
  const [first = ''] = result.values;
  if (result.type === 'sequence') {
    if (result.count === 0) return `\`${xpath}\` is the empty sequence.`;
    if (result.count === 1) return first;
    return `${result.count} items in \`${xpath}\`:\n${nodeLines(result)}`;
  }
  if (result.type === 'string' && first === '' && !result.truncated)
    return `\`${xpath}\` is the empty string.`;
  if (result.type !== 'node-set') return first;
  if (result.count === 0) return `No nodes matched \`${xpath}\`.`;
  if (allEmpty(result)) {
    return `${result.count} node${result.count === 1 ? '' : 's'} matched \`${xpath}\`, all with empty text.`;
  }
  if (result.count === 1) return nodeLines(result);
  return `${result.count} nodes matched \`${xpath}\`:\n${nodeLines(result)}`;
}

/**
 * What one answer's values need said beside them, in the order the text gives it: which values
 * have edges of white space, which language's rules they followed.
 */
export function valueNotes(result: QueryResult): string[] {
  return [edgeSpaceNote(result), versionNote(result)];
}

/** Said once per answer, so a model knows which language's rules the values followed. */
function versionNote(result: QueryResult): string {
  return result.xpath_version === undefined ? '' : `(evaluated as XPath ${result.xpath_version})`;
}

/**
 * Every node matched has an empty string-value (markup and paths never are): only when each was
 * shown, since a budget that left no room shows none.
 */
export function allEmpty(result: QueryResult): boolean {
  return (
    result.lines === undefined &&
    !result.truncated &&
    result.values.length > 0 &&
    result.values.every((value) => value === '')
  );
}

/**
 * The nodes of a node-set, one a line: a path with its line, or a value (string-value or markup),
 * numbered when one of several is empty or spans lines so that each stays visibly apart.
 */
export function nodeLines(result: QueryResult): string {
  const { lines } = result;
  if (lines) return result.values.map((path, i) => `${path} (${lineText(lines[i])})`).join('\n');
  return (
    numbered(result) ? result.values.map((value, index) => `[${index + 1}] ${value}`) : result.values
  ).join('\n');
}

/** Values shown with their number: one of several is empty or spans lines, or its edges are white. */
function numbered(result: QueryResult): boolean {
  return (
    result.lines === undefined &&
    result.values.length > 1 &&
    result.values.some((value) => value === '' || /[\n\r]/.test(value) || hasEdgeSpace(value))
  );
}

/** A one-line value that starts or ends with a space or tab: plain text hides a trailing one. */
function hasEdgeSpace(value: string): boolean {
  return !/[\n\r]/.test(value) && /^[ \t]|[ \t]$/.test(value);
}

/** Values shown in the note by number before it says "and N more". */
const MAX_NOTED_VALUES = 10;

/**
 * A line naming the values that start or end with a space or tab, as the document has them: a
 * model reading `available ` sees `available`, then compares with `=` and misses it (a trial
 * found three such traps in one catalog). Values stay as they are; the note says how to match them.
 */
function edgeSpaceNote(result: QueryResult): string {
  const { values } = result;
  // Paths have no white edges; a map or an array is JSON, its strings already quoted.
  if (result.lines !== undefined || result.type === 'map' || result.type === 'array') return '';
  const padded = values.flatMap((value, index) => (hasEdgeSpace(value) ? [index] : []));
  if (padded.length === 0) return '';
  const advice = 'kept as the document has it; `=` compares it exactly, `normalize-space()` trims it';
  if (!numbered(result))
    return `(The value is ${visibleJson(shortened(values[padded[0] as number] as string))}: whitespace at its start or end is ${advice}.)`;
  const shown = padded
    .slice(0, MAX_NOTED_VALUES)
    .map((index) => `[${index + 1}] ${visibleJson(shortened(values[index] as string))}`);
  const more = padded.length > MAX_NOTED_VALUES ? ` and ${padded.length - MAX_NOTED_VALUES} more` : '';
  return `(Whitespace at the start or end of ${shown.join(', ')}${more}: ${advice}.)`;
}

/** A value short enough to quote in a note, its edges kept (they are what the note is about). */
function shortened(value: string): string {
  // toWellFormed: a cut through a surrogate pair would leave half an emoji in the note.
  return value.length <= 60 ? value : `${value.slice(0, 28)}…${value.slice(-28)}`.toWellFormed();
}

function lineText(line: number | undefined): string {
  return line ? `line ${line}` : 'the document node, no line';
}
