/**
 * The values of a per-item computation (xpath31-per-item-plan.ts) for each node of a selection,
 * read from libxml2's structs: a relative path's nodes are found by walking each node's children
 * or attributes and comparing names, with no wrapper made, no item passed through fontoxpath's
 * iterators, and nothing kept after the call (docs/adr/0055-xpath-3-1-paths-selected-by-libxml2.md,
 * addendum "per-item values").
 *
 * Exact or nothing: where XPath 3.1 would raise an error (two nodes where one is allowed, a value
 * that is not a number to `xs:double`, an integer past 2^53) or might read a value otherwise than
 * this module (`INF`, `NaN`, white space other than XML's), `PerItemRefused` is thrown and the
 * expression is evaluated as written, so the answer or the error is fontoxpath's own.
 */

import { CHILDREN, NAME, NEXT, NS, PROPERTIES, TYPE } from './node-offsets.js';
import type { NodeStep, PerItemExpression } from './xpath31-per-item-plan.js';

const ELEMENT = 1;
const ATTRIBUTE = 2;

/** What the walk reads of the tree: the view (xpath31-view.ts) provides it over its memory. */
export interface NodeStructs {
  /** Renews the memory's views (after anything allocated in libxml2's heap). */
  refresh(): void;
  /** The memory as words, as of the last renewal (`textAt` renews when it allocates). */
  words(): Int32Array;
  localNameAt(ptr: number): string;
  namespaceAt(ptr: number): string | null;
  /** A node's string-value (an element's text and CDATA descendants); may allocate in libxml2's heap. */
  textAt(ptr: number): string | null;
}

/** A value this module does not compute exactly: the expression is evaluated as written. */
export class PerItemRefused extends Error {}

/** A number to `xs:double` in every reading (no `INF`, `NaN`, or white space but XML's). */
const DOUBLE = /^[ \t\n\r]*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t\n\r]*$/;
const DECIMAL = /^[ \t\n\r]*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[ \t\n\r]*$/;

/** The computation's values, node by node in the selection's order; an empty result adds none. */
export function perItemValues(
  structs: NodeStructs,
  pointers: readonly number[],
  expression: PerItemExpression,
): number[] {
  const walker = new PerItemWalker(structs);
  const values: number[] = [];
  for (const ptr of pointers) {
    const value = walker.valueAt(ptr, expression);
    if (value !== null) values.push(value);
  }
  return values;
}

class PerItemWalker {
  readonly #structs: NodeStructs;
  #words: Int32Array;
  /** Whether a name pointer's local name is a step's, per step (names are shared by libxml2's dictionary). */
  readonly #names = new Map<NodeStep, Map<number, boolean>>();
  constructor(structs: NodeStructs) {
    this.#structs = structs;
    structs.refresh();
    this.#words = structs.words();
  }

  valueAt(ptr: number, expression: PerItemExpression): number | null {
    switch (expression.kind) {
      case 'literal':
        return expression.value;
      case 'count':
        return this.#count(ptr, expression.path);
      case 'number': {
        const text = this.#textOfOne(ptr, expression.path);
        return text === null ? Number.NaN : parsed(text, DOUBLE);
      }
      case 'untyped': {
        const text = this.#textOfOne(ptr, expression.path);
        return text === null ? null : parsed(text, DOUBLE);
      }
      case 'cast': {
        const text = this.#textOfOne(ptr, expression.path);
        return text === null ? null : parsed(text, expression.type === 'double' ? DOUBLE : DECIMAL);
      }
      case 'arithmetic': {
        // Both operands, always: an error in either is XPath 3.1's to raise or not.
        const left = this.valueAt(ptr, expression.left);
        const right = this.valueAt(ptr, expression.right);
        if (left === null || right === null) return null;
        const value = arithmetic(expression.operator, left, right);
        if (expression.type === 'integer' && !Number.isSafeInteger(value))
          throw new PerItemRefused('an integer past 2^53');
        return value;
      }
    }
  }

  /** The atomized value of the path's one node, null for none; more than one is XPTY0004. */
  #textOfOne(ptr: number, path: NodeStep[]): string | null {
    let node = ptr;
    if (path.length === 1) {
      // The common case (`price`, `@amount`), without the arrays of a longer path.
      const step = path[0] as NodeStep;
      node = this.#next(ptr, step, 0);
      if (node === 0) return null;
      if (this.#next(ptr, step, node) !== 0) throw new PerItemRefused('two nodes where one is allowed');
    } else if (path.length > 1) {
      const nodes = this.#nodes(ptr, path);
      if (nodes.length === 0) return null;
      if (nodes.length > 1) throw new PerItemRefused('two nodes where one is allowed');
      node = nodes[0] as number;
    }
    // An element or an attribute: the kinds a step by name takes, each with a string-value.
    const text = this.#structs.textAt(node) as string;
    this.#words = this.#structs.words();
    return text;
  }

  #count(ptr: number, path: NodeStep[]): number {
    if (path.length !== 1) return this.#nodes(ptr, path).length;
    const step = path[0] as NodeStep;
    let count = 0;
    for (let node = this.#next(ptr, step, 0); node !== 0; node = this.#next(ptr, step, node)) count++;
    return count;
  }

  /** The path's nodes from `ptr`, in document order (each step's within its parent's). */
  #nodes(ptr: number, path: NodeStep[]): number[] {
    let current = [ptr];
    for (const step of path) {
      const next: number[] = [];
      for (const parent of current)
        for (let node = this.#next(parent, step, 0); node !== 0; node = this.#next(parent, step, node))
          next.push(node);
      current = next;
    }
    return current;
  }

  /** The first node the step takes from `parent` after `after` (0: from the first), or 0. */
  #next(parent: number, step: NodeStep, after: number): number {
    const words = this.#words;
    if (after === 0 && words[(parent + TYPE) >>> 2] !== ELEMENT) return 0;
    const type = step.attribute ? ATTRIBUTE : ELEMENT;
    let names = this.#names.get(step);
    if (names === undefined) {
      names = new Map();
      this.#names.set(step, names);
    }
    let node =
      after === 0
        ? (words[(parent + (step.attribute ? PROPERTIES : CHILDREN)) >>> 2] as number)
        : (words[(after + NEXT) >>> 2] as number);
    for (; node !== 0; node = words[(node + NEXT) >>> 2] as number) {
      if (words[(node + TYPE) >>> 2] !== type) continue;
      const namePtr = words[(node + NAME) >>> 2] as number;
      let local = names.get(namePtr);
      if (local === undefined) {
        local = this.#structs.localNameAt(node) === step.local;
        names.set(namePtr, local);
      }
      if (!local) continue;
      const nsPtr = words[(node + NS) >>> 2];
      if (nsPtr === 0 ? step.uri === null : this.#structs.namespaceAt(node) === step.uri) return node;
    }
    return 0;
  }
}

function arithmetic(operator: '+' | '-' | '*' | 'div', left: number, right: number): number {
  if (operator === '+') return left + right;
  if (operator === '-') return left - right;
  if (operator === '*') return left * right;
  return left / right;
}

function parsed(text: string, pattern: RegExp): number {
  if (!pattern.test(text)) throw new PerItemRefused('a value that is not a plain number');
  return Number.parseFloat(text);
}
