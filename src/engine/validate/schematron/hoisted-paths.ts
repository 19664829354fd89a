import { absolutePaths } from '../../libxml2/xpath31-paths.js';
import type { Let } from './model.js';

/**
 * A rule's tests with each absolute path that names no variable (`//cac:InvoiceLine`,
 * `/ubl:Invoice/cbc:ID`) taken out into a `let` evaluated once for all the rule's context nodes. Such a
 * path selects the same on every context node, and fontoxpath otherwise walks the document
 * again for each: a rule on each of 500 invoice lines whose test sums every line's amount read
 * 250,000 lines (ADR 0053, Addendum). A path naming a variable stays, since the variable may be
 * the rule's own or bound inside the test. Identical paths share one `let`.
 */
export function hoistAbsolutePaths(tests: readonly string[]): { tests: string[]; lets: Let[] } {
  const byPath = new Map<string, string>();
  const rewritten = tests.map((test) => {
    const spans = absolutePaths(test);
    if (spans === null) return test;
    const pieces: string[] = [];
    let copied = 0;
    for (const { start, end, variables } of spans) {
      if (variables) continue;
      const path = unionOfDescendants(test.slice(start, end));
      let name = byPath.get(path);
      if (name === undefined) {
        name = `oxml-path-${byPath.size + 1}`;
        byPath.set(path, name);
      }
      pieces.push(test.slice(copied, start), `$${name}`);
      copied = end;
    }
    pieces.push(test.slice(copied));
    return pieces.join('');
  });
  return { tests: rewritten, lets: [...byPath].map(([value, name]) => ({ name, value })) };
}

/** `//(a|b)` at the start of a path: its union of names, for `unionOfDescendants`. */
const DESCENDANTS_BY_NAMES = /^\/\/\(\s*([\w.-]+(?::[\w.-]+)?(?:\s*\|\s*[\w.-]+(?::[\w.-]+)?)*)\s*\)/u;

/**
 * `//(a|b)/c` as `(//a | //b)/c`: the same nodes in the same order (the union of the children
 * named a or b of every node, in document order), but a form ADR 0055's planner reads, so
 * libxml2 selects `//a` and `//b` where fontoxpath walked every node of the document (EN 16931's
 * `//(cac:InvoiceLine|cac:CreditNoteLine)/xs:decimal(cbc:LineExtensionAmount)`).
 */
export function unionOfDescendants(path: string): string {
  const match = DESCENDANTS_BY_NAMES.exec(path);
  if (match === null) return path;
  const names = (match[1] as string).split('|').map((name) => `//${name.trim()}`);
  return `(${names.join(' | ')})${path.slice(match[0].length)}`;
}
