import { XmlValidateError } from 'libxml2-wasm';

/** libxml2's reasons for refusing a schema, each with its line, as one sentence's tail. */
export function describeSchemaError(error: unknown): string {
  if (error instanceof XmlValidateError || (error instanceof Error && 'details' in error)) {
    const details = (error as XmlValidateError).details ?? [];
    const lines = details.map((d) => `line ${d.line}: ${d.message.trim()}`);
    if (lines.length > 0) return lines.join('; ');
  }
  return error instanceof Error ? error.message.trim() : String(error);
}
