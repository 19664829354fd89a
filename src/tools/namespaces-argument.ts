import { z } from 'zod';
import { MAX_NAMESPACE_BINDINGS, MAX_NAMESPACE_URI_LENGTH, MAX_PREFIX_LENGTH } from '../limits.js';
import { objectFromJsonText } from './lenient-arguments.js';

/** The longest JSON text of bindings within the bounds (quotes, colon, comma, spaces). */
const MAX_BINDINGS_TEXT = MAX_NAMESPACE_BINDINGS * (MAX_PREFIX_LENGTH + MAX_NAMESPACE_URI_LENGTH + 8) + 2;

/**
 * Checks the bounds before zod reads a single binding, and stops at the first one past them: a
 * million bindings are refused in the time it takes to enumerate them, not the seconds zod takes
 * to validate each, and no message repeats a hostile prefix.
 */
function outOfBounds(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  let bindings = 0;
  for (const prefix in value) {
    const uri = (value as Record<string, unknown>)[prefix];
    if (++bindings > MAX_NAMESPACE_BINDINGS) {
      return `more than the limit of ${MAX_NAMESPACE_BINDINGS} bindings; pass only the prefixes the expression uses`;
    }
    if (prefix.length > MAX_PREFIX_LENGTH) {
      return `binding a prefix longer than the limit of ${MAX_PREFIX_LENGTH} characters`;
    }
    if (typeof uri === 'string' && uri.length > MAX_NAMESPACE_URI_LENGTH) {
      return `binding \`${prefix}\` to a namespace URI longer than the limit of ${MAX_NAMESPACE_URI_LENGTH} characters`;
    }
  }
  return undefined;
}

/** Prefix → namespace URI bindings, bounded in number and length (MAX_NAMESPACE_BINDINGS). */
export const namespacesArgument = z
  .preprocess(
    (given, context) => {
      const value = objectFromJsonText(given, MAX_BINDINGS_TEXT);
      const problem = outOfBounds(value);
      if (problem) context.issues.push({ code: 'custom', input: value, message: problem });
      return value;
    },
    z.record(z.string(), z.string()),
  )
  .describe("Prefix → namespace URI for prefixes used in xpath; the document's own prefixes are not used.");
