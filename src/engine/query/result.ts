/** What a query answers, shared by the evaluators and the hints that explain an answer. */

export interface QueryResult {
  /**
   * What came back. XPath 1.0 has the first four; XPath 3.1 (xpath31.ts) also answers a
   * `sequence` (no item, several atomic values, or nodes mixed with values), a `map` or an `array`.
   */
  type: 'node-set' | 'number' | 'string' | 'boolean' | 'sequence' | 'map' | 'array';
  /** Nodes in a node-set, items in a sequence; 1 for a scalar, a map or an array. */
  count: number;
  /**
   * String-values (or markup, or paths: `QueryOutput`) in document order, the items of a sequence
   * in its order, or the one scalar value; a map or an array as JSON text.
   */
  values: string[];
  /** With `output: "paths"`: the line of each node in `values`, 0 for the document node (it has none). */
  lines?: number[];
  /** Present when the output budget cut `values` (or, as markup, a node in it): the count stays exact. */
  truncated?: true;
  /** Present when the expression was not XPath 1.0 and was evaluated as XPath 3.1. */
  xpath_version?: '3.1';
}

/**
 * What a node-set answers (docs/behaviour.md §2): each node's string-value, its markup, or its
 * location path and line. Scalars answer their value whatever is asked.
 */
export type QueryOutput = 'values' | 'xml' | 'paths';

export interface OutputBudget {
  maxChars: number;
  maxValues: number;
}
