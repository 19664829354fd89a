import { z } from 'zod';
import type { Violation } from '../xml/validate.js';
import { answering, defineTool, encode, toolError, toolResult, xmlArgument } from './tool.js';

const output = z.object({
  valid: z.boolean(),
  violations: z.array(
    z.object({ message: z.string(), path: z.string().nullable(), line: z.int().nullable() }),
  ),
});

export const xmlValidate = defineTool({
  name: 'xml_validate',
  title: 'Validate XML against XSD',
  description:
    'Validate a document against an XML Schema (XSD 1.0) given as text. Lists every violation with its element path and line. xs:import/xs:include are never fetched: inline them.',
  input: z.object({ xml: xmlArgument, xsd: z.string().describe('The XSD schema itself, as text.') }),
  output,
  async run({ xml, xsd }, { engine, call }) {
    return answering(async () => {
      const result = await engine.run('validate', { xml: encode(xml), xsd: encode(xsd) }, call);
      if (result.valid) return toolResult('Valid: the document conforms to the schema.', { ...result });
      return toolError(render(result.violations), { ...result });
    });
  },
});

function render(violations: Violation[]): string {
  const lines = violations.map((violation, index) => {
    const where = [violation.line === null ? null : `line ${violation.line}`, violation.path]
      .filter(Boolean)
      .join(', ');
    return `${index + 1}. ${where ? `${where}: ` : ''}${violation.message}`;
  });
  return [
    `Invalid: ${violations.length} violation${violations.length === 1 ? '' : 's'} of the schema.`,
    ...lines,
  ].join('\n');
}
