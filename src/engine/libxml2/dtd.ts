import type { XmlDocument, XmlDtd } from 'libxml2-wasm';
import {
  XmlTreeCommonStruct,
  xmlCtxtSetErrorHandler,
  xmlCtxtValidateDtd,
  xmlFreeParserCtxt,
  xmlNewParserCtxt,
} from 'libxml2-wasm/lib/libxml2.mjs';
import { CHILDREN, NAME } from './node-offsets.js';
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

/** libxml2's XML_ENTITY_DECL node type, and XML_EXTERNAL_PARAMETER_ENTITY among entity kinds. */
const ENTITY_DECL = 17;
const EXTERNAL_PARAMETER_ENTITY = 5;
/** Offsets in libxml2 2.15.1's `xmlEntity` on wasm32, after the node fields: `etype`, `SystemID`. */
const ETYPE = 48;
const SYSTEM_ID = 56;

/**
 * The parameter entities a parsed DTD declares as another file, by name with their system
 * identifier, however the declaration was written (plainly, or built by expanding another
 * entity whose value spells it in character references): libxml2 links every entity it
 * declares into the DTD's children, whatever wrote it.
 */
export function externalParameterEntities(dtd: XmlDtd): Array<{ name: string; location: string }> {
  const found: Array<{ name: string; location: string }> = [];
  for (
    let node = XmlTreeCommonStruct.children(validatorPointer(dtd));
    node !== 0;
    node = XmlTreeCommonStruct.next(node)
  ) {
    if (XmlTreeCommonStruct.type(node) !== ENTITY_DECL) continue;
    // `children` reads the word at its offset: shifted, it reads any word of the struct.
    if (XmlTreeCommonStruct.children(node + ETYPE - CHILDREN) !== EXTERNAL_PARAMETER_ENTITY) continue;
    found.push({
      name: XmlTreeCommonStruct.name_(node),
      location: XmlTreeCommonStruct.name_(node + SYSTEM_ID - NAME),
    });
  }
  return found;
}
