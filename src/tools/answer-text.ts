/** The text of a query answer, beyond the values themselves. */

/** A sentence the engine added to an empty answer, on a line of its own after it. */
export function hintText(hint: string | undefined): string {
  return hint === undefined ? '' : `\n${hint}`;
}
