import { EngineError } from '../errors.js';
import { localName, namespaceOf } from '../libxml2/tree.js';
import { ISO_SCHEMATRON_NAMESPACE, SCHEMATRON_1_5_NAMESPACE } from './schematron/schema-tree.js';

/**
 * The schema languages `xml_validate` reads (docs/adr/0038-relax-ng-and-dtd-in-the-xsd-argument.md,
 * docs/adr/0053-schematron-on-the-servers-own-engines.md).
 */
export type SchemaLanguage = 'xsd' | 'relaxng' | 'dtd' | 'schematron';

export const XSD_NAMESPACE = 'http://www.w3.org/2001/XMLSchema';
export const RELAX_NG_NAMESPACE = 'http://relaxng.org/ns/structure/1.0';

/** How far into the text the markup before a DTD's first declaration is looked for. */
const PROLOGUE_BYTES = 1 << 20;

/**
 * A DTD is text of declarations, not a document: after a text declaration, comments and
 * processing instructions it starts with `<!ELEMENT`, `<!ATTLIST`, `<!ENTITY`, `<!NOTATION`, a
 * conditional section or a parameter-entity reference. Anything else is read as a document.
 */
export function isDtdText(bytes: Uint8Array): boolean {
  const { text, at } = afterPrologue(bytes);
  return (
    at !== undefined &&
    /^(<!(ELEMENT|ATTLIST|ENTITY|NOTATION)\s|<!\[|%[^\s;]+;)/.test(text.slice(at, at + 16))
  );
}

/** The first PROLOGUE_BYTES as text, and where its first markup other than a comment or PI starts. */
function afterPrologue(bytes: Uint8Array): { text: string; at: number | undefined } {
  const text = Buffer.from(
    bytes.buffer,
    bytes.byteOffset,
    Math.min(bytes.byteLength, PROLOGUE_BYTES),
  ).toString('utf8');
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    while (at < text.length && /\s/.test(text[at] as string)) at++;
    const close = text.startsWith('<!--', at) ? '-->' : text.startsWith('<?', at) ? '?>' : undefined;
    if (close === undefined) return { text, at };
    const end = text.indexOf(close, at);
    if (end < 0) return { text, at: undefined };
    at = end + close.length;
  }
}

/**
 * A DTD pasted as a document type declaration with nothing after it, `<!DOCTYPE r [ … ]>` (what a
 * document's own internal subset looks like): its declarations, the part between the brackets.
 * A declaration that only names an external DTD (`<!DOCTYPE r SYSTEM "r.dtd">`) is refused,
 * since that DTD would have to be fetched. Undefined for any other text.
 */
export function dtdInDoctype(bytes: Uint8Array): Uint8Array | undefined {
  if (bytes.byteLength > PROLOGUE_BYTES) return undefined;
  const { text, at } = afterPrologue(bytes);
  if (at === undefined || !text.startsWith('<!DOCTYPE', at)) return undefined;
  const trimmed = text.trimEnd();
  const open = /^<!DOCTYPE\s+[^\s[>]+(?:\s+(?:SYSTEM|PUBLIC)(?:\s+(?:"[^"]*"|'[^']*'))+)?\s*(\[|>)/.exec(
    text.slice(at),
  );
  if (!open) return undefined;
  if (open[1] === '>') {
    if (at + open[0].length !== trimmed.length) return undefined;
    throw new EngineError({
      code: 'invalid-schema',
      message:
        "The `xsd` argument is a document type declaration that only names an external DTD, which is never fetched. Pass the DTD's declarations themselves (`<!ELEMENT …>`, `<!ATTLIST …>`).",
    });
  }
  if (!/\]\s*>$/.test(trimmed)) return undefined;
  const start = Buffer.byteLength(text.slice(0, at + open[0].length));
  const end = Buffer.byteLength(trimmed.slice(0, trimmed.lastIndexOf(']')));
  return bytes.subarray(start, end);
}

/**
 * RELAX NG's compact syntax (`element book { … }`, `start = …`, `default namespace = …`) holds no
 * markup; libxml2 reads only the XML syntax, so it is named as such rather than "not well-formed".
 */
export function refuseCompactSyntax(bytes: Uint8Array): void {
  const start = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString(
    'utf8',
  );
  if (
    !/^\s*(default\s+namespace\b|namespace\s+\w+\s*=|datatypes\s+\w+\s*=|start\s*=|element\s+[\w:.-]+\s*\{|grammar\s*\{)/.test(
      start,
    )
  )
    return;
  throw new EngineError({
    code: 'invalid-schema',
    message:
      'The `xsd` argument looks like RELAX NG compact syntax, which libxml2 cannot read. Convert it to the XML syntax (e.g. `trang schema.rnc schema.rng`) and pass that text.',
  });
}

/**
 * The language of a schema sent as a document, from its root element: any element in RELAX NG's
 * namespace (`grammar`, or a single pattern such as `element`) is RELAX NG, `xs:schema` is XSD,
 * an element in ISO Schematron's namespace (or Schematron 1.5's) is Schematron.
 */
export function languageOfRoot(root: number): SchemaLanguage {
  const uri = namespaceOf(root)?.uri;
  if (uri === RELAX_NG_NAMESPACE) return 'relaxng';
  if (uri === XSD_NAMESPACE) return 'xsd';
  if (uri === ISO_SCHEMATRON_NAMESPACE || uri === SCHEMATRON_1_5_NAMESPACE) return 'schematron';
  const name = `${uri ? `{${uri}}` : ''}${localName(root)}`;
  throw new EngineError({
    code: 'invalid-schema',
    message: `The \`xsd\` argument's root element is \`${name}\`, which is no schema language read here. Pass an XML Schema (root \`xs:schema\` in ${XSD_NAMESPACE}), a RELAX NG schema in its XML syntax (root in ${RELAX_NG_NAMESPACE}), an ISO Schematron schema (root \`schema\` in ${ISO_SCHEMATRON_NAMESPACE}) or a DTD's declarations (\`<!ELEMENT …>\`).`,
  });
}
