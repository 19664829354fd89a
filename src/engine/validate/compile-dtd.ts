import { XmlDtd } from 'libxml2-wasm';
import { EngineError, isEngineTrap } from '../errors.js';
import { externalParameterEntities } from '../libxml2/dtd.js';
import { assertWithinSize } from '../parse.js';
import { describeSchemaError } from './schema-error.js';

/**
 * Parses a DTD sent as text (its declarations, as an external subset would hold them). libxml2
 * parses it from memory with a parser of its own, under the same entity-amplification limit as
 * documents (no XML_PARSE_HUGE); the caller disposes of the result.
 */
export function compileDtd(bytes: Uint8Array): XmlDtd {
  assertWithinSize(bytes, 'xsd');
  refuseExternalParameterEntities(bytes);
  let dtd: XmlDtd;
  try {
    dtd = XmlDtd.fromBuffer(bytes);
  } catch (error) {
    if (isEngineTrap(error)) throw error;
    const reason = describeSchemaError(error);
    throw new EngineError({
      code: /amplification|too deep|depth \d+/i.test(reason) ? 'limit-exceeded' : 'invalid-schema',
      message: `The \`xsd\` argument is not a usable DTD: ${reason}`,
    });
  }
  // Declared however it was written: built from character references in another entity's value
  // and declared by expanding that one, it passes any reading of the text (issue 33 F5).
  const [external] = externalParameterEntities(dtd);
  if (external) {
    dtd.dispose();
    throw externalEntityRefusal(external.name, external.location);
  }
  return dtd;
}

/**
 * A parameter entity with a SYSTEM or PUBLIC identifier (`<!ENTITY % iso PUBLIC "…" "iso.ent">`)
 * is how a DTD pulls in another file (modules, entity sets). Nothing is ever fetched
 * (docs/behaviour.md §1), and a DTD missing its modules validates wrongly, so it is refused with
 * the fix. Comments are skipped first; a declaration quoted inside an entity's value can still be
 * taken for one, which refuses a harmless DTD. This reading of the text gives the refusal before
 * anything is parsed; the parsed DTD's own entities (`externalParameterEntities`) are the check
 * that nothing written otherwise passes.
 */
function refuseExternalParameterEntities(bytes: Uint8Array): void {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('utf8')
    .replace(/<!--[\s\S]*?-->/g, ' ');
  const match = /<!ENTITY\s+%\s*([^\s"']+)\s+(SYSTEM|PUBLIC)\s*("[^"]*"|'[^']*')(\s*("[^"]*"|'[^']*'))?/.exec(
    text,
  );
  if (match) throw externalEntityRefusal(match[1] ?? '', (match[5] ?? match[3] ?? '').slice(1, -1));
}

function externalEntityRefusal(name: string, location: string): EngineError {
  return new EngineError({
    code: 'invalid-schema',
    message: `The \`xsd\` argument declares the parameter entity \`%${name};\` as another file (\`${location}\`); nothing is ever fetched. Paste that file's declarations in place of the entity and its reference, and call again.`,
  });
}
