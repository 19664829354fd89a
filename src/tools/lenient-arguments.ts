/**
 * Some clients send an object or a number argument as the JSON text of it (`"{\"a\": \"urn:x\"}"`,
 * `"2"`). Where the text says plainly what was meant, it is read as meant (docs/behaviour.md §2);
 * anything else is left as it was, for the schema to refuse with a sentence naming the field.
 */

/** The object a JSON string holds, when it holds one and is at most `maxLength` characters. */
export function objectFromJsonText(value: unknown, maxLength: number): unknown {
  if (typeof value !== 'string' || value.length > maxLength || !value.trimStart().startsWith('{'))
    return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return value;
  }
  // A `__proto__` key would be dropped by the object the schema builds; src/tools/proto-keys.ts
  // keeps such keys only for objects sent as objects.
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    Array.isArray(parsed) ||
    Object.hasOwn(parsed, '__proto__')
  ) {
    return value;
  }
  return parsed;
}

/** The integer a string of decimal digits spells (`"2"`, `" 16 "`). */
export function integerFromText(value: unknown): unknown {
  return typeof value === 'string' && /^\s*[+-]?\d{1,9}\s*$/.test(value) ? Number(value) : value;
}
