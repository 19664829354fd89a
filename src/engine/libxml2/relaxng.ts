import type { RelaxNGValidator, XmlDocument } from 'libxml2-wasm';
import {
  xmlRelaxNGFreeValidCtxt,
  xmlRelaxNGNewValidCtxt,
  xmlRelaxNGSetValidStructuredErrors,
  xmlRelaxNGValidateDoc,
} from 'libxml2-wasm/lib/libxml2.mjs';
import { validatorPointer } from './schema.js';
import { documentPointer } from './tree.js';
import { collectingViolations, onViolationPointer, type RawViolation } from './violation-sink.js';

/**
 * Validates a parsed document against a compiled RELAX NG grammar (both stay the caller's),
 * handing each violation to `onViolation`. Returns libxml2's status: 0 valid, > 0 invalid, < 0
 * libxml2 gave up before the end.
 */
export function validateRelaxNG(
  validator: RelaxNGValidator,
  doc: XmlDocument,
  onViolation: (violation: RawViolation) => void,
): number {
  const context = xmlRelaxNGNewValidCtxt(validatorPointer(validator));
  if (context === 0) throw new Error('libxml2 could not allocate a RELAX NG validation context');
  try {
    xmlRelaxNGSetValidStructuredErrors(context, onViolationPointer, 0);
    return collectingViolations(onViolation, () => xmlRelaxNGValidateDoc(context, documentPointer(doc)));
  } finally {
    xmlRelaxNGFreeValidCtxt(context);
  }
}
