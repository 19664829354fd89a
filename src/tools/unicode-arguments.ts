import { DOCUMENT_ARGUMENTS } from '../lifted-document.js';

/**
 * A sentence for an argument string that is not well-formed Unicode, or undefined. A JSON string
 * can carry a lone surrogate ("\uD800"), but UTF-8 cannot: encoding would quietly turn it into
 * U+FFFD, a legal character, and hide the error from libxml2. So it is refused while the text is
 * still text, here, before the engine sees bytes. In a document it is located by line and column,
 * as libxml2 locates every other well-formedness error; elsewhere by character.
 */
export function loneSurrogateRefusal(field: string, value: unknown): string | undefined {
  const text = illFormedText(value);
  if (text === undefined) return undefined;
  const at = text.search(/\p{Surrogate}/u);
  if (DOCUMENT_ARGUMENTS.has(field) && text === value) {
    const before = text.slice(0, at);
    const line = before.split('\n').length;
    const column = at - before.lastIndexOf('\n');
    return `The \`${field}\` argument is not well-formed XML: line ${line}, column ${column}: a lone UTF-16 surrogate is not a character; send valid Unicode (a character outside the BMP must be a surrogate pair).`;
  }
  return `The \`${field}\` argument contains a lone UTF-16 surrogate at character ${at + 1}; send valid Unicode (a character outside the BMP must be a surrogate pair).`;
}

/** The argument's string, or one of its object's keys and values, that is not well-formed. */
function illFormedText(value: unknown): string | undefined {
  const texts =
    typeof value === 'string'
      ? [value]
      : value && typeof value === 'object'
        ? Object.entries(value).flat()
        : [];
  return texts.find((text): text is string => typeof text === 'string' && !text.isWellFormed());
}
