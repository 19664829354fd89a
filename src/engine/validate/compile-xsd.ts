import { type XmlDocument, XsdValidator } from 'libxml2-wasm';
import { EngineError, isEngineTrap } from '../errors.js';
import { documentPointer } from '../libxml2/tree.js';
import { evaluate } from '../query/query.js';
import { refuseDeepSchemaChains } from './schema-chains.js';
import { describeSchemaError } from './schema-error.js';
import { XSD_NAMESPACE } from './schema-language.js';

/** Compiles a parsed XSD (which stays the caller's) after the refusals that protect the engine. */
export function compileXsd(schemaDoc: XmlDocument, maxSchemaChain?: number): XsdValidator {
  try {
    refuseExternalSchemaParts(documentPointer(schemaDoc));
    refuseDeepSchemaChains(documentPointer(schemaDoc), maxSchemaChain);
    return XsdValidator.fromDoc(schemaDoc);
  } catch (error) {
    if (error instanceof EngineError || isEngineTrap(error)) throw error;
    throw new EngineError({
      code: 'invalid-schema',
      message: `The \`xsd\` argument is not a usable XML Schema: ${describeSchemaError(error)}`,
    });
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
    { xs: XSD_NAMESPACE },
  );
  const location = external.values[0];
  if (location === undefined) return;
  throw new EngineError({
    code: 'invalid-schema',
    message: `The \`xsd\` argument refers to another schema document (\`${location}\`) through xs:include/xs:import/xs:redefine; nothing is ever fetched. Inline the referenced declarations into one schema document and call again.`,
  });
}
