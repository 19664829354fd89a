import { ByteSink } from './libxml2/byte-sink.js';
import { decodeUtf8 } from './libxml2/utf8.js';
import { withDocument, type XmlSource } from './parse.js';

export type EmptyElementStyle = 'self-closing' | 'spaced' | 'expanded';

export interface FormatOptions {
  /** Spaces per level; 0 minifies. */
  indent: number;
  emptyElements: EmptyElementStyle;
}

const NEWLINE = 0x0a;

/**
 * Serialises the document again. libxml2 leaves any element holding text (mixed content,
 * `xml:space="preserve"` content) unindented, so character data is never changed; the parse
 * drops only whitespace-only text between elements, which is what indentation replaces.
 */
export function format(xml: XmlSource, options: FormatOptions): string {
  return decodeUtf8(formatToBytes(xml, options));
}

/**
 * The same as UTF-8 bytes in a buffer of their own, which the worker transfers: an indented 8 MiB
 * document formats to ~128 MB, and as a string it would be built in pieces, flattened, then
 * cloned to the main thread (docs/adr/0010-output-back-pressure.md).
 */
export function formatToBytes(xml: XmlSource, options: FormatOptions): Uint8Array {
  const output = withDocument(xml, 'format', (doc) => {
    const sink = new ByteSink();
    doc.save(sink, {
      encoding: 'utf-8',
      format: options.indent > 0,
      indentString: ' '.repeat(options.indent),
      noEmptyTags: options.emptyElements === 'expanded',
      noDeclaration: !hasDeclaration(xml),
    });
    return sink.take();
  });
  const trimmed = output[output.length - 1] === NEWLINE ? output.subarray(0, -1) : output;
  if (options.emptyElements !== 'spaced') return trimmed;
  return new TextEncoder().encode(spaceEmptyTags(decodeUtf8(trimmed)));
}

/** Only the first characters can hold the declaration, so only they are decoded. */
function hasDeclaration(xml: XmlSource): boolean {
  const start = typeof xml === 'string' ? xml.slice(0, 8) : decodeUtf8(xml.subarray(0, 16));
  return /^\uFEFF?<\?xml[\s?]/.test(start);
}

/**
 * `<a/>` → `<a />` in tags only. Comments, CDATA, PIs and the DOCTYPE are matched first and
 * kept as they are, so text such as `<!-- <b/> -->` is untouched. libxml2 escapes `>` inside
 * attribute values, so a tag ends at its first `>`.
 */
function spaceEmptyTags(serialized: string): string {
  return serialized.replace(
    /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>|<!DOCTYPE(?:[^[>]|\[[\s\S]*?\])*>|<[^!?>][^>]*?\/>/g,
    (token) =>
      token.endsWith('/>') && !token.startsWith('<!') && !token.startsWith('<?')
        ? token.replace(/\s*\/>$/, ' />')
        : token,
  );
}
