import { z } from 'zod';
import { answering, defineTool, encode, toolResult, xmlArgument } from './tool.js';

const input = z.object({
  xml: xmlArgument,
  xpath: z
    .string()
    .describe('XPath 1.0 expression, evaluated with the document node as context, e.g. count(//item).'),
  namespaces: z
    .record(z.string(), z.string())
    .optional()
    .describe("Prefix → namespace URI for prefixes used in xpath; the document's own prefixes are not used."),
});

const output = z.object({
  type: z.enum(['node-set', 'number', 'string', 'boolean']),
  count: z.int().min(0),
  values: z.array(z.string()),
});

export const xmlQuery = defineTool({
  name: 'xml_query',
  title: 'Query XML with XPath',
  description:
    'Evaluate an XPath 1.0 expression on an XML document and get the exact answer: a count, a value, or the string-value of each matched node (one per line, document order). Use it instead of reading or counting by eye. Prefixed names need `namespaces`; call xml_inspect first to learn them.',
  input,
  output,
  async run({ xml, xpath, namespaces }, { engine, signal }) {
    return answering(async () => {
      const result = await engine.run(
        'query',
        { xml: encode(xml), xpath, namespaces: namespaces ?? {} },
        { signal },
      );
      return toolResult(render(result, xpath), { ...result });
    });
  },
});

function render(result: z.infer<typeof output>, xpath: string): string {
  if (result.type !== 'node-set') return result.values[0] ?? '';
  if (result.count === 0) return `No nodes matched \`${xpath}\`.`;
  if (result.values.every((value) => value === '')) {
    return `${result.count} node${result.count === 1 ? '' : 's'} matched \`${xpath}\`, all with empty text.`;
  }
  return result.values.join('\n');
}
