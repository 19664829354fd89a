import { decodeUtf8 } from './libxml2/utf8.js';
import { visibleJson } from './visible-json.js';

/**
 * What a not-well-formed message adds to libxml2's own words: the text where the parse stopped,
 * and for the mistakes real documents make most, what to write instead. A model sees neither the
 * line nor the column it is given (it sent the text, often a file it never read), and libxml2's
 * `xmlParseEntityRef: no name` does not say "a bare &".
 */

/** Characters of the line shown on each side of the column. */
const SIDE = 30;

/**
 * The text around (line, column) as libxml2 counts them (lines from 1; columns from 1, in
 * characters), quoted as JSON so that tabs, quotes and control characters read plainly, cut at
 * the line's ends, with `…` where more of the line goes on. Undefined when there is no such line.
 */
export function nearText(bytes: Uint8Array, line: number, column: number): string | undefined {
  if (line < 1 || column < 1) return undefined;
  let lineStart = 0;
  for (let seen = 1; seen < line; seen++) {
    const next = bytes.indexOf(0x0a, lineStart);
    if (next < 0) return undefined;
    lineStart = next + 1;
  }
  const newline = bytes.indexOf(0x0a, lineStart);
  const lineEnd = newline < 0 ? bytes.byteLength : newline;
  // A minified document is one line of megabytes: step over characters by their lead bytes to
  // the window, and decode only the window.
  const from = byteAfterCharacters(bytes, lineStart, lineEnd, Math.max(0, column - 1 - SIDE));
  const to = byteAfterCharacters(bytes, from, lineEnd, Math.min(column - 1, SIDE) + SIDE);
  const shown = decodeUtf8(bytes.subarray(from, to)).replace(/\r$/, '');
  if (shown.trim() === '') return undefined;
  return `${from > lineStart ? '…' : ''}${visibleJson(shown)}${to < lineEnd ? '…' : ''}`;
}

/** The offset `count` UTF-8 characters after `from`, or `end` if the text ends first. */
function byteAfterCharacters(bytes: Uint8Array, from: number, end: number, count: number): number {
  let at = from;
  for (let seen = 0; at < end; at++) {
    // A continuation byte (10xxxxxx) belongs to the character before it.
    if (((bytes[at] ?? 0) & 0xc0) !== 0x80 && seen++ === count) return at;
  }
  return end;
}

/** libxml2's reason → what the document most likely holds, and how to write it. */
const FIXES: Array<[RegExp, string]> = [
  [
    /xmlParseEntityRef: no name|EntityRef: expecting ';'/,
    'A `&` that starts no entity reference: a literal ampersand is written `&amp;` in XML.',
  ],
  [
    /StartTag: invalid element name/,
    'A `<` that starts no tag: a literal less-than sign is written `&lt;` in XML.',
  ],
  [
    /Entity '(?:nbsp|copy|reg|mdash|ndash|hellip|eacute|uuml|auml|ouml|laquo|raquo|trade|euro)' not defined/,
    'An HTML entity, which XML does not know: write the character itself or a numeric reference (`&#160;` for `&nbsp;`).',
  ],
  [
    /Extra content at the end of the document/,
    'More than one top-level element, or text after the root element: XML has exactly one root, so wrap the parts in one element.',
  ],
  [
    /Start tag expected, '<' not found|Document is empty/,
    'The text does not start with XML (JSON, HTML or a file path?): the argument takes the XML text itself.',
  ],
];

export function fixFor(reason: string): string | undefined {
  return FIXES.find(([pattern]) => pattern.test(reason))?.[1];
}
