import type { Plugin } from 'esbuild';

/**
 * The engine as it was before ADR 0055, for a bench's baseline bundle: no path of an XPath 3.1
 * expression is selected by libxml2, no predicate hoisted; fontoxpath evaluates every step.
 */
export const withoutSelection: Plugin = {
  name: 'xpath31-without-selection',
  setup(esbuild) {
    esbuild.onLoad({ filter: /xpath31-paths\.ts$/ }, () => ({
      contents: `export const SELECTED_NAMESPACE = 'urn:oxml-mcp:xpath31-selected';
export function planPaths() { return null; }`,
      loader: 'ts',
    }));
    esbuild.onLoad({ filter: /xpath31-invariant-predicates\.ts$/ }, () => ({
      contents: 'export function hoistInvariantPredicates() { return null; }',
      loader: 'ts',
    }));
  },
};
