import { MAX_XPATH_OPERATIONS } from '../../limits.js';
import { evaluateXPath, isXPathFailure } from './xpath.js';
import type { PathPlan } from './xpath31-paths.js';
import type { LxNode, Xpath31View } from './xpath31-view.js';

/**
 * What libxml2 selected for one path of a plan: the nodes as the view's wrappers in document
 * order, or, for a path read only by `distinct-values` (`textsOnly`), no wrapper at all but each
 * distinct text once, in the order of its first node.
 */
export type Selection =
  | { nodes: readonly LxNode[] }
  | { distinctTexts: readonly string[] }
  /** A path only per-item computations read (`pointersOnly`): fontoxpath never sees its nodes. */
  | { pointers: readonly number[] };

/**
 * What libxml2 selects for each path of a plan (xpath31-paths.ts), in the plan's order; or null
 * when a guard finds a compared value the two languages read differently, a path fails (over its
 * step budget), or it selects a node fontoxpath must not see, so that the expression is evaluated
 * as written instead.
 */
export function selectPaths(
  view: Xpath31View,
  plan: PathPlan,
  namespaces: Record<string, string>,
  opLimit = MAX_XPATH_OPERATIONS,
): Selection[] | null {
  const docPtr = view.docPtr;
  const selections: Selection[] = [];
  for (const { path, guards, textsOnly, pointersOnly } of plan.paths) {
    for (const guard of guards) {
      const differs = evaluateXPath(docPtr, `boolean(${guard})`, namespaces, opLimit, (value) =>
        value.type === 'boolean' ? value.value : true,
      );
      if (differs !== false) return null;
    }
    const selection = evaluateXPath(docPtr, path, namespaces, opLimit, (value): Selection | null => {
      if (value.type !== 'node-set') return null;
      // libxml2 may have grown the WebAssembly memory while it evaluated.
      view.refresh();
      if (textsOnly) {
        const texts = new Set<string>();
        for (let index = 0; index < value.size; index++) {
          const text = view.textAt(value.node(index));
          if (text === null) return null;
          texts.add(text);
        }
        return { distinctTexts: [...texts] };
      }
      if (pointersOnly) {
        const pointers: number[] = new Array(value.size);
        for (let index = 0; index < value.size; index++) pointers[index] = value.node(index);
        return { pointers };
      }
      const wrapped: LxNode[] = new Array(value.size);
      for (let index = 0; index < value.size; index++) {
        const node = view.wrap(value.node(index));
        if (node === null) return null;
        wrapped[index] = node;
      }
      return { nodes: wrapped };
    });
    if (selection === null || isXPathFailure(selection)) return null;
    selections.push(selection);
  }
  return selections;
}
