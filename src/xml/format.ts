import { parseDocument, type XmlSource } from './parse.js';

export type EmptyElementStyle = 'self-closing' | 'spaced' | 'expanded';

export interface FormatOptions {
  /** Spaces per level; 0 minifies. */
  indent: number;
  emptyElements: EmptyElementStyle;
}

/**
 * Serialises the document again. libxml2 leaves any element holding text (mixed content,
 * `xml:space="preserve"` content) unindented, so character data is never changed; the parse
 * drops only whitespace-only text between elements, which is what indentation replaces.
 */
export function format(xml: XmlSource, options: FormatOptions): string {
  const text = typeof xml === 'string' ? xml : new TextDecoder().decode(xml);
  const doc = parseDocument(xml, 'format');
  try {
    const output = doc.toString({
      format: options.indent > 0,
      indentString: ' '.repeat(options.indent),
      noEmptyTags: options.emptyElements === 'expanded',
      noDeclaration: !hasDeclaration(text),
    });
    const trimmed = output.replace(/\n$/, '');
    return options.emptyElements === 'spaced' ? spaceEmptyTags(trimmed) : trimmed;
  } finally {
    doc.dispose();
  }
}

function hasDeclaration(text: string): boolean {
  return /^\uFEFF?<\?xml[\s?]/.test(text);
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
