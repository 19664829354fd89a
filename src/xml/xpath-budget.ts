import { readI32, writeI32 } from './wasm-memory.js';

/**
 * Offsets in libxml2 2.15's `xmlXPathContext` on wasm32 (libxml2-wasm 0.7.2): `doc` at 0,
 * `opLimit` at 204, `opCount` at 208. Each use first checks that `doc` reads back as the
 * document, so an upgrade that moves the struct disables the limit instead of writing astray.
 */
const DOC_OFFSET = 0;
const OP_LIMIT_OFFSET = 204;
const OP_COUNT_OFFSET = 208;

/**
 * Gives one XPath evaluation an operation budget: libxml2 stops the evaluation with
 * "Operation limit exceeded" once it has executed `limit` steps, in milliseconds, where the
 * worker deadline would cost a worker restart. Returns false when the budget cannot be set.
 */
export function applyOperationBudget(context: number, docPtr: number, limit: number): boolean {
  if (readI32(context + DOC_OFFSET) !== docPtr) return false;
  return writeI32(context + OP_COUNT_OFFSET, 0) && writeI32(context + OP_LIMIT_OFFSET, limit);
}
