import type { XmlDocument, XsdValidator } from 'libxml2-wasm';
import {
  xmlSchemaFreeValidCtxt,
  xmlSchemaNewValidCtxt,
  xmlSchemaSetValidStructuredErrors,
  xmlSchemaValidateDoc,
} from 'libxml2-wasm/lib/libxml2.mjs';
import { documentPointer } from './tree.js';
import { collectingViolations, onViolationPointer, type RawViolation } from './violation-sink.js';

export type { RawViolation } from './violation-sink.js';

/**
 * Validates a parsed document against a compiled XSD (both stay the caller's), handing each
 * violation to `onViolation` as it is found. Returns libxml2's status: 0 valid, > 0 invalid,
 * < 0 libxml2 gave up before the end.
 */
export function validateDocument(
  validator: XsdValidator,
  doc: XmlDocument,
  onViolation: (violation: RawViolation) => void,
): number {
  const context = xmlSchemaNewValidCtxt(validatorPointer(validator));
  if (context === 0) throw new Error('libxml2 could not allocate a schema validation context');
  try {
    xmlSchemaSetValidStructuredErrors(context, onViolationPointer, 0);
    return collectingViolations(onViolation, () => xmlSchemaValidateDoc(context, documentPointer(doc)));
  } finally {
    xmlSchemaFreeValidCtxt(context);
  }
}

/** The compiled schema a libxml2-wasm validator wraps (private to the wrapper). */
export function validatorPointer(validator: object): number {
  return (validator as unknown as { _ptr: number })._ptr;
}
