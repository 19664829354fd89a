import type { XmlDocument, XsdValidator } from 'libxml2-wasm';
import * as libxml2 from 'libxml2-wasm/lib/libxml2.mjs';
import {
  XmlErrorStruct,
  xmlGetNodePath,
  xmlSchemaFreeValidCtxt,
  xmlSchemaNewValidCtxt,
  xmlSchemaSetValidStructuredErrors,
  xmlSchemaValidateDoc,
} from 'libxml2-wasm/lib/libxml2.mjs';
import { documentPointer } from './tree.js';

/**
 * One violation as libxml2 reports it, read only on demand: `path()` costs a scan of every
 * ancestor's siblings, so a caller that only counts never pays for it.
 */
export interface RawViolation {
  message(): string;
  /** Path to the element concerned, e.g. `/order/item[3]/price`. */
  path(): string | null;
  /** 0 when libxml2 knows no line. */
  line(): number;
}

/** The sink of the validation under way on this thread; libxml2 calls back synchronously. */
let sink: ((violation: RawViolation) => void) | undefined;

/*
 * libxml2-wasm's `XsdValidator.validate` collects through its own callback, which asks libxml2
 * for every violation's element path; `xmlGetNodePath` scans all siblings of each ancestor to
 * number the step, so N bad values in one list cost N² steps (60,000 of them: 45 s, see
 * bench/validation-violations.ts). The wrapper has no option to skip it, so validation is driven
 * here through the same raw functions. `addFunction` is exported at run time but missing from
 * the package's type declarations.
 */
const { addFunction } = libxml2 as unknown as {
  addFunction(callback: (userData: number, error: number) => void, signature: 'vii'): number;
};

const onError = addFunction((_userData, error) => {
  sink?.({
    message: () => XmlErrorStruct.message(error).trim(),
    path: () => xmlGetNodePath(XmlErrorStruct.node(error)),
    line: () => XmlErrorStruct.line(error),
  });
}, 'vii');

/**
 * Validates a parsed document against a compiled schema (both stay the caller's), handing each
 * violation to `onViolation` as it is found. Returns libxml2's status: 0 valid, > 0 invalid,
 * < 0 libxml2 gave up before the end.
 */
export function validateDocument(
  validator: XsdValidator,
  doc: XmlDocument,
  onViolation: (violation: RawViolation) => void,
): number {
  const context = xmlSchemaNewValidCtxt(schemaPointer(validator));
  if (context === 0) throw new Error('libxml2 could not allocate a schema validation context');
  sink = onViolation;
  try {
    xmlSchemaSetValidStructuredErrors(context, onError, 0);
    return xmlSchemaValidateDoc(context, documentPointer(doc));
  } finally {
    sink = undefined;
    xmlSchemaFreeValidCtxt(context);
  }
}

function schemaPointer(validator: XsdValidator): number {
  return (validator as unknown as { _ptr: number })._ptr;
}
