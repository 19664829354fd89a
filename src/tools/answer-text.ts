import type { QueryResult } from '../engine/query.js';

/**
 * The text of one `values` answer (docs/behaviour.md §2): a scalar as itself; the empty string
 * and an empty node-set in words; several nodes under a line that gives their count, one value
 * a line, numbered when a value is empty or spans lines so that each stays visibly apart.
 */
export function valuesText(result: QueryResult, xpath: string): string {
  const [first = ''] = result.values;
  if (result.type === 'string' && first === '' && !result.truncated)
    return `\`${xpath}\` is the empty string.`;
  if (result.type !== 'node-set') return first;
  if (result.count === 0) return `No nodes matched \`${xpath}\`.`;
  if (result.values.every((value) => value === '')) {
    return `${result.count} node${result.count === 1 ? '' : 's'} matched \`${xpath}\`, all with empty text.`;
  }
  if (result.count === 1) return first;
  const apart = result.values.some((value) => value === '' || /[\n\r]/.test(value));
  const values = apart ? result.values.map((value, index) => `[${index + 1}] ${value}`) : result.values;
  return [`${result.count} nodes matched \`${xpath}\`:`, ...values].join('\n');
}

/** A sentence the engine added to an empty answer, on a line of its own after it. */
export function hintText(hint: string | undefined): string {
  return hint === undefined ? '' : `\n${hint}`;
}
