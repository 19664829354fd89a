import { RelaxNGValidator, type XmlDocument } from 'libxml2-wasm';
import { EngineError, isEngineTrap } from '../errors.js';
import { documentPointer } from '../libxml2/tree.js';
import { evaluate } from '../query/query.js';
import { describeSchemaError } from './schema-error.js';
import { RELAX_NG_NAMESPACE } from './schema-language.js';

/** Compiles a parsed RELAX NG schema (which stays the caller's) once nothing in it points outside. */
export function compileRelaxNG(schemaDoc: XmlDocument): RelaxNGValidator {
  try {
    refuseExternalGrammars(documentPointer(schemaDoc));
    return RelaxNGValidator.fromDoc(schemaDoc);
  } catch (error) {
    if (error instanceof EngineError || isEngineTrap(error)) throw error;
    throw new EngineError({
      code: 'invalid-schema',
      message: `The \`xsd\` argument is not a usable RELAX NG schema: ${describeSchemaError(error)}`,
    });
  }
}

/**
 * `include` and `externalRef` name another grammar by `href`; libxml2 would try to read it as a
 * file, which it cannot here, and a grammar missing its included half validates wrongly. As for
 * `xs:include` (docs/behaviour.md §2), the fix is said instead.
 */
function refuseExternalGrammars(schemaPtr: number): void {
  const external = evaluate(schemaPtr, '(//rng:include | //rng:externalRef)[1]', { rng: RELAX_NG_NAMESPACE });
  if (external.count === 0) return;
  const href = evaluate(schemaPtr, 'string((//rng:include | //rng:externalRef)[1]/@href)', {
    rng: RELAX_NG_NAMESPACE,
  }).values[0];
  throw new EngineError({
    code: 'invalid-schema',
    message: `The \`xsd\` argument refers to another grammar (\`${href}\`) through RELAX NG include/externalRef; nothing is ever fetched. Paste the referenced grammar's definitions into this one (an include's defines and start into the grammar, an externalRef's pattern in its place) and call again.`,
  });
}
