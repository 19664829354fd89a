import * as libxml2 from 'libxml2-wasm/lib/libxml2.mjs';
import { XmlErrorStruct } from 'libxml2-wasm/lib/libxml2.mjs';
import type { NodeRef } from './tree.js';

/** One violation as libxml2 reports it, read only on demand: a caller that only counts pays nothing. */
export interface RawViolation {
  message(): string;
  /** The node concerned (an element, or an attribute), 0 when libxml2 names none. */
  node(): NodeRef;
  /** 0 when libxml2 knows no line. */
  line(): number;
}

/** The sink of the validation under way on this thread; libxml2 calls back synchronously. */
let sink: ((violation: RawViolation) => void) | undefined;

/*
 * libxml2-wasm's validators collect through their own callback, which asks libxml2 for every
 * violation's element path; `xmlGetNodePath` scans all siblings of each ancestor to number the
 * step, so N bad values in one list cost N² steps (60,000 of them: 45 s, see
 * bench/validation-violations.ts), and writes an element in a default namespace as `*`. The
 * wrappers have no option to skip it, so every schema language is driven here through the raw
 * functions, with this one callback; the path is the engine's own (query/node-path.ts). `addFunction` is
 * exported at run time but missing from the package's type declarations.
 */
const { addFunction } = libxml2 as unknown as {
  addFunction(callback: (userData: number, error: number) => void, signature: 'vii'): number;
};

/** libxml2's structured error callback (`xmlStructuredErrorFunc`) that feeds the sink. */
export const onViolationPointer = addFunction((_userData, error) => {
  sink?.({
    message: () => XmlErrorStruct.message(error).trim(),
    node: () => XmlErrorStruct.node(error),
    line: () => XmlErrorStruct.line(error),
  });
}, 'vii');

/** Runs `validation` with every violation libxml2 reports handed to `onViolation`. */
export function collectingViolations<T>(
  onViolation: (violation: RawViolation) => void,
  validation: () => T,
): T {
  sink = onViolation;
  try {
    return validation();
  } finally {
    sink = undefined;
  }
}
