import { MAX_XPATH_OPERATIONS } from '../../limits.js';
import { evaluateXPath, isXPathFailure } from './xpath.js';
import type { PathPlan } from './xpath31-paths.js';
import type { LxNode, Xpath31View } from './xpath31-view.js';

/**
 * The nodes libxml2 selects for each path of a plan (xpath31-paths.ts), in the plan's order, as
 * the view's wrappers in document order; or null when a guard finds a compared value the two
 * languages read differently, or a path fails (over its step budget), so that the expression is
 * evaluated as written instead.
 */
export function selectPaths(
  view: Xpath31View,
  plan: PathPlan,
  namespaces: Record<string, string>,
  opLimit = MAX_XPATH_OPERATIONS,
): LxNode[][] | null {
  const docPtr = view.docPtr;
  const selections: LxNode[][] = [];
  for (const { path, guards } of plan.paths) {
    for (const guard of guards) {
      const differs = evaluateXPath(docPtr, `boolean(${guard})`, namespaces, opLimit, (value) =>
        value.type === 'boolean' ? value.value : true,
      );
      if (differs !== false) return null;
    }
    const nodes = evaluateXPath(docPtr, path, namespaces, opLimit, (value) => {
      if (value.type !== 'node-set') return null;
      // libxml2 may have grown the WebAssembly memory while it evaluated.
      view.refresh();
      const wrapped: LxNode[] = new Array(value.size);
      for (let index = 0; index < value.size; index++) {
        const node = view.wrap(value.node(index));
        if (node === null) return null;
        wrapped[index] = node;
      }
      return wrapped;
    });
    if (nodes === null || isXPathFailure(nodes)) return null;
    selections.push(nodes);
  }
  return selections;
}
