import type { NodeRef } from '../../libxml2/tree.js';
import type { Check, Let, MessagePart, Rule } from './model.js';

/** What run.ts asks of an XPath engine; one evaluator per call, over one parsed document. */
export interface Evaluator {
  /** Each rule's context nodes, in document order, for one pattern (its lets and the schema's in scope). */
  contexts(rules: readonly Rule[], lets: readonly Let[]): NodeRef[][];
  /**
   * For each node and each of the rule's checks (node-major), whether it fires: an assert whose
   * test is false, a report whose test is true.
   */
  fires(rule: Rule, nodes: readonly NodeRef[], lets: readonly Let[]): boolean[];
  /** The parts of a message as text, evaluated on the node that fired (its `value-of` and `name`). */
  message(rule: Rule, node: NodeRef, parts: readonly MessagePart[], lets: readonly Let[]): string;
}

/**
 * A rule's context as the expression that selects what it matches: an XSLT match pattern `a/b`
 * matches wherever `//a/b` selects, and each branch of a union likewise; a branch that starts at
 * the root (`/`, `//`) stays as written.
 */
export function selectionOf(context: string): string {
  return topLevelBranches(context)
    .map((branch) => {
      const trimmed = branch.trim();
      return trimmed.startsWith('/') ? trimmed : `//${trimmed}`;
    })
    .join(' | ');
}

/** The branches of a union, split at `|` outside brackets and string literals. */
function topLevelBranches(expression: string): string[] {
  const branches: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let at = 0; at < expression.length; at++) {
    const char = expression[at] as string;
    if (quote !== null) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '(' || char === '[' || char === '{') depth++;
    else if (char === ')' || char === ']' || char === '}') depth--;
    else if (char === '|' && depth === 0 && expression[at + 1] !== '|') {
      branches.push(expression.slice(start, at));
      start = at + 1;
    }
  }
  branches.push(expression.slice(start));
  return branches;
}

/** `current()` at the top of a rule's expressions is the rule's context node (XSLT's current node). */
export function withCurrent(expression: string, replacement: string): string {
  return expression.replace(/(?<![\w.-])current\s*\(\s*\)/g, replacement);
}

/** The text of a check's message and its diagnostics, white space collapsed as SVRL readers show it. */
export function messageText(check: Check, readParts: (parts: readonly MessagePart[]) => string): string {
  const main = readParts(check.message);
  const diagnostics = check.diagnostics.map(readParts).filter((text) => text !== '');
  return [main, ...diagnostics].join(' ').replace(/\s+/g, ' ').trim();
}
