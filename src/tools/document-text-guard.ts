import { DOCUMENT_ARGUMENTS } from '../lifted-document.js';

/** Longer than this, a string without `<` is still no document, but no longer plainly a path. */
const MAX_PATH_LENGTH = 2_048;

const LOOKS_LIKE = [
  /^[a-z][a-z0-9+.-]*:\/\/\S*$/i, // https://…, file:///…
  /^file:\S+$/i,
  /^[a-z]:[\\/]/i, // C:\…, C:/…
  /^\\\\[^\\\s]+\\/, // \\server\share\…
  /^(~|\.{1,2})?\/[^\n]*$/, // /x/y.xml, ./y.xml, ../y.xml, ~/y.xml
  /^[^\s/\\<>:"|?*]+\.(xml|xsd|xsl|xslt|svg|atom|rss|pom|xhtml|html?|kml|gpx|wsdl|plist|csproj|config|resx|dita|nuspec)$/i,
];

/**
 * A sentence for a document argument that is plainly a path or URL, which would otherwise be
 * answered "Start tag expected": a model that passed `/x/y.xml` must learn to pass the text.
 * Only a string with no `<` qualifies, so no well-formed document is ever refused here
 * (docs/behaviour.md §1.1: a document is sent as its text, never a path or URL).
 */
export function pathInsteadOfText(args: Record<string, unknown>): string | undefined {
  for (const name of DOCUMENT_ARGUMENTS) {
    const value = args[name];
    if (typeof value !== 'string' || value.length > MAX_PATH_LENGTH || value.includes('<')) continue;
    const text = value.trim();
    if (text === '' || /[\r\n]/.test(text) || !LOOKS_LIKE.some((pattern) => pattern.test(text))) continue;
    const shown = text.length <= 200 ? ` (\`${text}\`)` : '';
    return `The \`${name}\` argument looks like a path or URL${shown}: pass the document's text, not its path or URL; this server never opens files.`;
  }
  return undefined;
}
