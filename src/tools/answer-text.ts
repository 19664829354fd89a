import type { QueryResult } from '../engine/query.js';

/**
 * The text of one answer (docs/behaviour.md §2): a scalar as itself; the empty string and an
 * empty node-set in words; several nodes under a line that gives their count, then `nodeLines`.
 */
export function valuesText(result: QueryResult, xpath: string): string {
  const [first = ''] = result.values;
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
  const apart =
    result.values.length > 1 && result.values.some((value) => value === '' || /[\n\r]/.test(value));
  return (apart ? result.values.map((value, index) => `[${index + 1}] ${value}`) : result.values).join('\n');
}

function lineText(line: number | undefined): string {
  return line ? `line ${line}` : 'the document node, no line';
}

/** A sentence the engine added to an empty answer, on a line of its own after it. */
export function hintText(hint: string | undefined): string {
  return hint === undefined ? '' : `\n${hint}`;
}
