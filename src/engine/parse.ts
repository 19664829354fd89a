import { ParseOption, XmlDocument, XmlParseError } from 'libxml2-wasm';
import { MAX_DOCUMENT_BYTES, MAX_ELEMENT_DEPTH, MAX_ENTITY_NESTING, MAX_NAME_LENGTH } from '../limits.js';
import { EngineError, isEngineTrap } from './errors.js';
import { dropInternalSubset } from './libxml2/tree.js';
import { fixFor, nearText } from './parse-error-context.js';

/**
 * Options every parse shares: never load external entities or DTDs, never touch the network,
 * and report true line numbers past 65,535. No XML_PARSE_HUGE, so libxml2 keeps its own
 * depth (256) and entity-amplification limits; no DTDLOAD, DTDVALID or XINCLUDE, ever.
 */
const SAFE = ParseOption.XML_PARSE_NO_XXE | ParseOption.XML_PARSE_NONET | ParseOption.XML_PARSE_BIG_LINES;

/** What the parse is for decides how entities, CDATA and blank text are kept. */
export type ParsePurpose = 'check' | 'query' | 'as-written' | 'validate' | 'format';

/**
 * Attribute defaults declared in the internal subset belong to the document (XML 1.0 §5.1,
 * XPath 1.0 §5.3). XML_PARSE_DTDATTR applies them; with NO_XXE it still loads nothing.
 */
const DEFAULTS = ParseOption.XML_PARSE_DTDATTR;

const OPTIONS: Record<ParsePurpose, ParseOption> = {
  check: SAFE,
  // XPath 1.0 sees entity replacement text and one text node where CDATA meets text (§5.7).
  query: SAFE | DEFAULTS | ParseOption.XML_PARSE_NOENT | ParseOption.XML_PARSE_NOCDATA,
  // The same without the DTD's attribute defaults: what the document writes (dtd-defaults-note.ts).
  'as-written': SAFE | ParseOption.XML_PARSE_NOENT | ParseOption.XML_PARSE_NOCDATA,
  validate: SAFE | DEFAULTS | ParseOption.XML_PARSE_NOENT,
  // Entity references stay references so formatting never changes data.
  format: SAFE | ParseOption.XML_PARSE_NOBLANKS,
};

/**
 * A document as the engine takes it: the UTF-8 bytes the tools pass, or a string, which tests and
 * the benchmark use and which must be well-formed Unicode (the tools refuse a lone surrogate
 * before encoding, `tools/unicode-arguments.ts`; here one would become U+FFFD).
 */
export type XmlSource = string | Uint8Array;

export function toUtf8(source: XmlSource): Uint8Array {
  return typeof source === 'string' ? Buffer.from(source, 'utf8') : source;
}

export function assertWithinSize(bytes: Uint8Array, argument: string): void {
  if (bytes.byteLength > MAX_DOCUMENT_BYTES) {
    throw new EngineError({
      code: 'too-large',
      message: `The \`${argument}\` argument is ${bytes.byteLength} bytes (UTF-8); the limit is ${MAX_DOCUMENT_BYTES} bytes (8 MiB). Pass a smaller document or an extract of it.`,
    });
  }
}

/**
 * Parses a document the caller must dispose. The text arrived as a JavaScript string, so it
 * is always read as UTF-8: an `encoding="ISO-8859-1"` declaration must not be applied twice.
 */
export function parseDocument(source: XmlSource, purpose: ParsePurpose, argument = 'xml'): XmlDocument {
  const bytes = toUtf8(source);
  assertWithinSize(bytes, argument);
  const options = OPTIONS[purpose];
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromBuffer(bytes, { option: options, encoding: 'utf-8' });
  } catch (error) {
    if (!(options & DEFAULTS) || !undeclaredEntity(error)) throw toNotWellFormed(error, argument, bytes);
    // With DTDATTR libxml2 acts as if the external subset had been read, so an entity it would
    // have declared (XHTML's &nbsp;) becomes an error. Such a document is well-formed
    // (WFC: Entity Declared does not apply), so it is read again without defaults.
    try {
      doc = XmlDocument.fromBuffer(bytes, { option: options & ~DEFAULTS, encoding: 'utf-8' });
    } catch (retryError) {
      throw toNotWellFormed(retryError, argument, bytes);
    }
  }
  // libxml2 2.15 keeps each parsed entity's content under its declaration in the internal
  // subset, and the document node's string-value (`string(/)`) then repeats it. With entities
  // already substituted and defaults applied, the subset has nothing left to give a query.
  if (purpose === 'query') dropInternalSubset(doc);
  return doc;
}

/** Parses, hands the document to `use`, and frees it whatever `use` does: the one parse/use/free. */
export function withDocument<T>(
  source: XmlSource,
  purpose: ParsePurpose,
  use: (doc: XmlDocument) => T,
  argument = 'xml',
): T {
  const doc = parseDocument(source, purpose, argument);
  try {
    return use(doc);
  } finally {
    doc.dispose();
  }
}

function undeclaredEntity(error: unknown): boolean {
  return (
    error instanceof XmlParseError &&
    error.details.some((detail) => /Entity '.*' not defined/.test(detail.message))
  );
}

function toNotWellFormed(error: unknown, argument: string, bytes: Uint8Array): EngineError {
  if (isEngineTrap(error)) throw error;
  if (!(error instanceof XmlParseError)) {
    return new EngineError({
      code: 'not-well-formed',
      message: `The \`${argument}\` argument could not be parsed.`,
    });
  }
  const first = error.details.find((detail) => detail.level >= 2) ?? error.details[0];
  const reason = (first?.message ?? error.message).trim();
  const limit = first ? limitMessage(reason, argument, first.line, first.col) : undefined;
  if (limit) return limit;
  if (!first)
    return new EngineError({
      code: 'not-well-formed',
      message: `The \`${argument}\` argument is not well-formed XML: ${reason}`,
    });
  const near = nearText(bytes, first.line, first.col);
  const fix = fixFor(reason);
  return new EngineError({
    code: 'not-well-formed',
    message:
      `The \`${argument}\` argument is not well-formed XML: line ${first.line}, column ${first.col}: ${reason}` +
      `${near ? `, near ${near}` : ''}.${fix ? ` ${fix}` : ''}`,
    line: first.line,
    column: first.col,
  });
}

/** libxml2's safety limits read as advice about its own options; say what they mean for the caller. */
function limitMessage(
  reason: string,
  argument: string,
  line: number,
  column: number,
): EngineError | undefined {
  const where = `line ${line}, column ${column}`;
  if (/Excessive depth/i.test(reason)) {
    return new EngineError({
      code: 'limit-exceeded',
      message: `The \`${argument}\` argument nests elements deeper than the depth limit of ${MAX_ELEMENT_DEPTH} levels (at ${where}). Pass a shallower document or an extract of it.`,
      line,
      column,
    });
  }
  if (/entity nesting depth/i.test(reason)) {
    return new EngineError({
      code: 'limit-exceeded',
      message: `The \`${argument}\` argument nests entities (an entity whose replacement text refers to another) deeper than the limit of ${MAX_ENTITY_NESTING} (at ${where}). Flatten the entity declarations so that fewer entities refer to other entities, or replace the references with their text.`,
      line,
      column,
    });
  }
  if (/Name too long/i.test(reason)) {
    return new EngineError({
      code: 'limit-exceeded',
      message: `The \`${argument}\` argument has a name longer than the limit of ${MAX_NAME_LENGTH} characters (at ${where}). Shorten the element or attribute name.`,
      line,
      column,
    });
  }
  if (/amplification/i.test(reason)) {
    return new EngineError({
      code: 'limit-exceeded',
      message: `The \`${argument}\` argument expands its entities far beyond its own size (at ${where}); this entity amplification ("billion laughs") is refused. Remove or simplify the entity declarations.`,
      line,
      column,
    });
  }
  return undefined;
}
