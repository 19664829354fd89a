/**
 * When a general comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`) means the same in XPath 1.0 and
 * 3.1, by what its two operands are (docs/adr/0055-xpath-3-1-paths-selected-by-libxml2.md, and
 * Schematron's tests, ADR 0053). XPath 1.0 makes the other side a boolean where one is a boolean,
 * and compares by number where one is a number or the comparison is ordered; XPath 3.1 compares
 * typed values. Null when they differ; else which sides are paths that need the number guard
 * (`<path>[number(.) != number(.)]`): XPath 3.1 casts their values to xs:double where XPath 1.0
 * calls number(), the same when every value is a number to libxml2.
 */
export type ComparedOperand = 'path' | 'string' | 'number' | 'boolean';

export function comparedAlike(
  left: ComparedOperand,
  right: ComparedOperand,
  operator: string,
): { guardLeft: boolean; guardRight: boolean } | null {
  const kinds = new Set([left, right]);
  if (kinds.has('boolean')) return null;
  if (kinds.has('number')) {
    // A string against a number is XPath 3.1's type error.
    if (kinds.has('string')) return null;
    return { guardLeft: left === 'path', guardRight: right === 'path' };
  }
  // Strings and paths: equal by their text in both; ordered by number in 1.0, by text in 3.1.
  return operator === '=' || operator === '!=' ? { guardLeft: false, guardRight: false } : null;
}
