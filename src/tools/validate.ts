import { z } from 'zod';
import type { ValidateResult, Violation } from '../engine/validate/validate.js';
import { MAX_LISTED_VIOLATIONS, MAX_VIOLATION_TEXT_CHARS, VIOLATION_OUTPUT_CHARS } from '../limits.js';
import {
  answering,
  type Declares,
  defineTool,
  documentArguments,
  encode,
  schemaArguments,
  toolError,
  toolResult,
} from './tool.js';

const output = z.object({
  valid: z.boolean(),
  total: z.int().min(0),
  violations: z.array(
    z.object({ message: z.string(), path: z.string().nullable(), line: z.int().nullable() }),
  ),
  truncated: z.literal(true).optional(),
});

true satisfies Declares<typeof output, ValidateResult>;

export const xmlValidate = defineTool({
  name: 'xml_validate',
  title: 'Validate XML against XSD',
  description:
    'Validate a document against an XML Schema (XSD 1.0) given as text. Lists the violations (the first 100) with element path and line, and their exact total. xs:import/xs:include are never fetched: inline them.',
  input: z.object({ ...documentArguments, ...schemaArguments }),
  output,
  async run({ xml, xsd }, { engine, call }) {
    return answering(async () => {
      const result = await engine.run('validate', { xml: encode(xml), xsd: encode(xsd) }, call);
      if (result.valid) return toolResult('Valid: the document conforms to the schema.', { ...result });
      return toolError(render(result) + truncationNote(result), { ...result });
    });
  },
});

function render({ total, violations }: ValidateResult): string {
  const lines = violations.map((violation, index) => `${index + 1}. ${describe(violation)}`);
  return [`Invalid: ${total} violation${total === 1 ? '' : 's'} of the schema.`, ...lines].join('\n');
}

function describe(violation: Violation): string {
  const where = [violation.line === null ? null : `line ${violation.line}`, violation.path]
    .filter(Boolean)
    .join(', ');
  return `${where ? `${where}: ` : ''}${violation.message}`;
}

function truncationNote({ total, violations, truncated }: ValidateResult): string {
  if (!truncated) return '';
  const shown = violations.length;
  const left = total - shown;
  const what =
    left > 0
      ? `Showing the first ${shown} of ${total} violations (${left} left out)`
      : `Showing all ${total} violations, with messages or paths over ${MAX_VIOLATION_TEXT_CHARS} characters cut (…)`;
  const next =
    left > 0
      ? 'Fix these and validate again, or validate an extract of the document to see the others.'
      : 'Query the element with xml_query to see its whole value.';
  return `\n[${what}: output budget of ${MAX_LISTED_VIOLATIONS} violations / ${VIOLATION_OUTPUT_CHARS} characters. ${next}]`;
}
