/*
 * A value quoted in a sentence (xml_inspect's values, the hints after an empty answer, the text
 * near a parse error) as a JSON string whose invisible characters are escaped: bidi controls,
 * zero-width characters and C1 controls passed raw, so `"admin"` and `"ad\u200Bmin"` looked the
 * same, and a U+202E turned the rest of a line around (issue 33 F10). JSON.stringify escapes
 * only C0 controls. Values answered as data (xml_query's `values`) stay exact.
 */

/** C1 controls, U+00AD, the Arabic letter mark, zero-width and bidi marks, separators, U+FEFF. */
const INVISIBLE = /[\u0080-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** `text` as a JSON string, every invisible character written `\uXXXX` (still valid JSON). */
export function visibleJson(text: string): string {
  return JSON.stringify(text).replace(INVISIBLE, escaped);
}

function escaped(char: string): string {
  return `\\u${(char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;
}
