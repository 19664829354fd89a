import { XmlValidateError, XsdValidator } from 'libxml2-wasm';
import { EngineError, isEngineTrap } from '../errors.js';
import { documentPointer } from '../libxml2/tree.js';
import { parseDocument, withDocument, type XmlSource } from '../parse.js';
import { evaluate } from '../query/query.js';
import { refuseDeepSchemaChains } from './schema-chains.js';
import { validationFailure } from './validation-failure.js';
import { runSchema, type Violation } from './violations.js';

export type { Violation } from './violations.js';

export interface ValidateResult {
  valid: boolean;
  /** Every violation libxml2 reported, listed or not. */
  total: number;
  /** The first violations, within the output budget (src/limits.ts). */
  violations: Violation[];
  /** Present when violations were left out or a message or path was cut. */
  truncated?: true;
}

const XSD = 'http://www.w3.org/2001/XMLSchema';

export interface ValidateLimits {
  /** Longest chain of schema definitions compiled (MAX_SCHEMA_CHAIN). */
  maxSchemaChain?: number;
}

/** Validates against an XSD 1.0 schema given as text. Nothing the schema points to is fetched. */
export function validate(xml: XmlSource, xsd: XmlSource, limits: ValidateLimits = {}): ValidateResult {
  const schemaDoc = parseDocument(xsd, 'validate', 'xsd');
  let validator: XsdValidator;
  try {
    refuseExternalSchemaParts(documentPointer(schemaDoc));
    refuseDeepSchemaChains(documentPointer(schemaDoc), limits.maxSchemaChain);
    validator = XsdValidator.fromDoc(schemaDoc);
  } catch (error) {
    if (error instanceof EngineError || isEngineTrap(error)) throw error;
    throw new EngineError({
      code: 'invalid-schema',
      message: `The \`xsd\` argument is not a usable XML Schema: ${describe(error)}`,
    });
  } finally {
    schemaDoc.dispose();
  }
  try {
    return withDocument(xml, 'validate', (doc): ValidateResult => {
      const outcome = runSchema(validator, doc);
      if (outcome.kind === 'failed') throw validationFailure(outcome.reports, xsd);
      if (outcome.kind === 'valid') return { valid: true, total: 0, violations: [] };
      const { total, violations, truncated } = outcome;
      return { valid: false, total, violations, ...(truncated ? { truncated: true } : {}) };
    });
  } finally {
    validator.dispose();
  }
}

/**
 * `xs:include`, `xs:redefine`, `xs:override` and `xs:import` with a location would make
 * libxml2 try to load another file; it cannot here, and a half-loaded schema gives verdicts
 * that look right and are not. Refuse them with the fix instead.
 */
function refuseExternalSchemaParts(schemaPtr: number): void {
  const external = evaluate(
    schemaPtr,
    '(/xs:schema/xs:include | /xs:schema/xs:redefine | /xs:schema/xs:override | /xs:schema/xs:import[@schemaLocation])/@schemaLocation',
    { xs: XSD },
  );
  const location = external.values[0];
  if (location === undefined) return;
  throw new EngineError({
    code: 'invalid-schema',
    message: `The \`xsd\` argument refers to another schema document (\`${location}\`) through xs:include/xs:import/xs:redefine; nothing is ever fetched. Inline the referenced declarations into one schema document and call again.`,
  });
}

function describe(error: unknown): string {
  if (error instanceof XmlValidateError || (error instanceof Error && 'details' in error)) {
    const details = (error as XmlValidateError).details ?? [];
    const lines = details.map((d) => `line ${d.line}: ${d.message.trim()}`);
    if (lines.length > 0) return lines.join('; ');
  }
  return error instanceof Error ? error.message.trim() : String(error);
}
