/** What a query answers, shared by the evaluators and the hints that explain an answer. */

export interface QueryResult {
  type: 'node-set' | 'number' | 'string' | 'boolean';
  /** Nodes in a node-set; 1 for a scalar. */
  count: number;
  /** String-values (or markup, or paths: `QueryOutput`) in document order, or the one scalar value. */
  values: string[];
  /** With `output: "paths"`: the line of each node in `values`, 0 for the document node (it has none). */
  lines?: number[];
  /** Present when the output budget cut `values` (or, as markup, a node in it): the count stays exact. */
  truncated?: true;
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
