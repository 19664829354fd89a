import { MAX_XPATH_OPERATIONS } from '../../limits.js';
import { evaluateXPath, isXPathFailure } from './xpath.js';
import type { PathPlan } from './xpath31-paths.js';
import type { LxNode, Xpath31View } from './xpath31-view.js';

/** What libxml2 selected for each path of a plan, in the plan's order. */
export interface Selections {
  /** The view's wrappers, in document order; empty for a path only per-item computations read. */
  nodes: LxNode[][];
  /** The same nodes as pointers. */
  pointers: number[][];
}

/**
 * The nodes libxml2 selects for each path of a plan (xpath31-paths.ts); or null when a guard finds
 * a compared value the two languages read differently, or a path fails (over its step budget),
 * so that the expression is evaluated as written instead. A path only per-item computations read
 * (`pointersOnly`) gets no wrappers: fontoxpath never sees its nodes.
 */
export function selectPaths(
  view: Xpath31View,
  plan: PathPlan,
  namespaces: Record<string, string>,
  opLimit = MAX_XPATH_OPERATIONS,
): Selections | null {
  const docPtr = view.docPtr;
  const selections: Selections = { nodes: [], pointers: [] };
  for (const { path, guards, pointersOnly } of plan.paths) {
    for (const guard of guards) {
      const differs = evaluateXPath(docPtr, `boolean(${guard})`, namespaces, opLimit, (value) =>
        value.type === 'boolean' ? value.value : true,
      );
      if (differs !== false) return null;
    }
    const selected = evaluateXPath(docPtr, path, namespaces, opLimit, (value) => {
      if (value.type !== 'node-set') return null;
      // libxml2 may have grown the WebAssembly memory while it evaluated.
      view.refresh();
      const pointers: number[] = new Array(value.size);
      for (let index = 0; index < value.size; index++) pointers[index] = value.node(index);
      if (pointersOnly) return { nodes: [], pointers };
      const nodes: LxNode[] = new Array(value.size);
      for (let index = 0; index < value.size; index++) {
        const node = view.wrap(pointers[index] as number);
        if (node === null) return null;
        nodes[index] = node;
      }
      return { nodes, pointers };
    });
    if (selected === null || isXPathFailure(selected)) return null;
    selections.nodes.push(selected.nodes);
    selections.pointers.push(selected.pointers);
  }
  return selections;
}
