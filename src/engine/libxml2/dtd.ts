import type { XmlDocument, XmlDtd } from 'libxml2-wasm';
import {
  xmlCtxtSetErrorHandler,
  xmlCtxtValidateDtd,
  xmlFreeParserCtxt,
  xmlNewParserCtxt,
} from 'libxml2-wasm/lib/libxml2.mjs';
import { validatorPointer } from './schema.js';
import { documentPointer } from './tree.js';
import { collectingViolations, onViolationPointer, type RawViolation } from './violation-sink.js';

/**
 * Validates a parsed document against a DTD parsed on its own (both stay the caller's), as if it
 * were the document's external subset, handing each violation to `onViolation`. Returns the
 * status the other languages use: 0 valid, 1 invalid.
 */
export function validateAgainstDtd(
  dtd: XmlDtd,
  doc: XmlDocument,
  onViolation: (violation: RawViolation) => void,
): number {
  const context = xmlNewParserCtxt();
  if (context === 0) throw new Error('libxml2 could not allocate a DTD validation context');
  try {
    xmlCtxtSetErrorHandler(context, onViolationPointer, 0);
    const valid = collectingViolations(onViolation, () =>
      xmlCtxtValidateDtd(context, documentPointer(doc), validatorPointer(dtd)),
    );
    return valid === 1 ? 0 : 1;
  } finally {
    xmlFreeParserCtxt(context);
  }
}
