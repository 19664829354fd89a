import type { XmlDocument } from 'libxml2-wasm';
import { decodeUtf8 } from '../libxml2/utf8.js';
import { withDocument } from '../parse.js';
import { visibleJson } from '../visible-json.js';
import { queryDocument } from './query.js';

/*
 * Attribute values a document's DTD supplies by default (XML 1.0 §3.3.2) are attributes to XPath
 * (§5.3): the engine parses with them applied, so `sum(//m:magic/@priority)` on the freedesktop
 * MIME database counts a priority of 50 on every `magic` that writes none (25231, where a tool
 * that skips DTD defaults, as lxml and xmllint without --dtdattr do, gives 8181). Right, but a
 * surprise: an answer that read such attributes says how many of them the document does not
 * write (issue 30).
 */

/** An attribute the internal subset gives a default value. */
interface Defaulted {
  element: string;
  attribute: string;
  value: string;
}

/** At most this many defaulted attributes are counted for one expression. */
const MAX_NOTED = 3;

/** The internal subset is read only this far: declarations past it are not looked for. */
const MAX_SUBSET_CHARS = 1 << 20;

const ATTLIST = /<!ATTLIST\s+([^\s>]+)([^>]*)>/g;
const DEFINITION =
  /([^\s"'()]+)\s+(?:CDATA|ID|IDREFS?|ENTITY|ENTITIES|NMTOKENS?|NOTATION\s*\([^)]*\)|\([^)]*\))\s+(?:#FIXED\s+)?(?:"([^"]*)"|'([^']*)'|#REQUIRED|#IMPLIED)/g;

/** The attribute defaults the document's internal DTD subset declares; none without `<!ATTLIST`. */
export function declaredDefaults(xml: Uint8Array): Defaulted[] {
  const start = Buffer.from(xml.buffer, xml.byteOffset, xml.byteLength).indexOf('<!ATTLIST');
  if (start === -1) return [];
  const subset = decodeUtf8(xml.subarray(start, Math.min(xml.byteLength, start + MAX_SUBSET_CHARS * 3)));
  const found: Defaulted[] = [];
  for (const [, element = '', definitions = ''] of subset.slice(0, MAX_SUBSET_CHARS).matchAll(ATTLIST)) {
    for (const [, attribute = '', double, single] of definitions.matchAll(DEFINITION)) {
      const value = double ?? single;
      if (value !== undefined) found.push({ element, attribute, value });
    }
  }
  return found;
}

/** Whether the expression reads the attribute by name (`@a`, `@p:a`, `attribute::a`) or all of them (`@*`). */
function reads(expression: string, attribute: string): boolean {
  const local = escaped(attribute.slice(attribute.indexOf(':') + 1));
  return new RegExp(`(?:@|attribute::)\\s*(?:\\*(?![\\w:])|(?:[\\w.-]+:)?${local}(?![\\w.-]))`).test(
    expression,
  );
}

/** Whether the expression has a name test for the element (`magic`, `m:magic`). */
function names(expression: string, element: string): boolean {
  const local = escaped(element.slice(element.indexOf(':') + 1));
  return new RegExp(`(?<![\\w.@$-])(?:[\\w.-]+:)?${local}(?![\\w.(-])`).test(expression);
}

function escaped(name: string): string {
  return name.replace(/[.-]/g, '\\$&');
}

/**
 * The sentence saying how many of the attributes `expression` reads are defaults from the DTD,
 * or undefined when none are (or the document declares none). Parses the document a second
 * time, without defaults, only when the expression names an attribute that has one.
 */
export function dtdDefaultsNote(xml: Uint8Array, doc: XmlDocument, expression: string): string | undefined {
  const byAttribute = declaredDefaults(xml).filter(({ attribute }) => reads(expression, attribute));
  // Where the expression names the element too (`//m:magic/@priority`), only its defaults count.
  const named = byAttribute.filter(({ element }) => names(expression, element));
  const read = (named.length > 0 ? named : byAttribute).slice(0, MAX_NOTED);
  if (read.length === 0) return undefined;
  const selector = ({ element, attribute }: Defaulted) =>
    `count(//*[name()=${literal(element)}][@*[name()=${literal(attribute)}]])`;
  const count = (on: XmlDocument, item: Defaulted) => Number(queryDocument(on, selector(item)).values[0]);
  const applied = read.map((item) => count(doc, item));
  const written = withDocument(xml, 'as-written', (plain) => read.map((item) => count(plain, item)));
  const sentences = read.flatMap((item, i) => {
    const supplied = (applied[i] ?? 0) - (written[i] ?? 0);
    if (supplied <= 0) return [];
    const value = item.value.length <= 40 ? item.value : `${item.value.slice(0, 40)}…`.toWellFormed();
    return [
      `${supplied} of the ${applied[i]} \`@${item.attribute}\` on \`${item.element}\` are not written in the document: its DTD supplies ${item.attribute}=${visibleJson(value)} by default, and XPath reads a default as an attribute (tools that skip DTD defaults do not).`,
    ];
  });
  return sentences.length === 0 ? undefined : sentences.join(' ');
}

/** A name as an XPath 1.0 string literal (names hold no quotes of both kinds). */
function literal(name: string): string {
  return name.includes("'") ? `"${name}"` : `'${name}'`;
}
