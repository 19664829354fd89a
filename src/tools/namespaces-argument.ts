import { z } from 'zod';
import { MAX_NAMESPACE_BINDINGS, MAX_NAMESPACE_URI_LENGTH, MAX_PREFIX_LENGTH } from '../limits.js';

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
    (value, context) => {
      const problem = outOfBounds(value);
      if (problem) context.issues.push({ code: 'custom', input: value, message: problem });
      return value;
    },
    z.record(z.string(), z.string()),
  )
  .describe("Prefix → namespace URI for prefixes used in xpath; the document's own prefixes are not used.");
