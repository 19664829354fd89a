import { z } from 'zod';
import {
  DEFAULT_OUTPUT_CHARS,
  MAX_OUTPUT_CHARS,
  MAX_OUTPUT_VALUES,
  MAX_XPATH_LENGTH,
  MIN_OUTPUT_CHARS,
} from '../limits.js';
import { hintText, valuesText } from './answer-text.js';
import { namespacesArgument } from './namespaces-argument.js';
import { answering, defineTool, documentArguments, encode, toolResult } from './tool.js';
import { withXPath2Hint } from './xpath2-hints.js';

const input = z.object({
  ...documentArguments,
  xpath: z
    .string()
    .max(MAX_XPATH_LENGTH, {
      error: `longer than the limit of ${MAX_XPATH_LENGTH} characters; split the question into several shorter queries`,
    })
    .describe('XPath 1.0 expression, evaluated with the document node as context, e.g. count(//item).'),
  namespaces: namespacesArgument.optional(),
  max_chars: z
    .int()
    .min(MIN_OUTPUT_CHARS)
    .max(MAX_OUTPUT_CHARS)
    .default(DEFAULT_OUTPUT_CHARS)
    .describe('Output budget in characters; longer answers are cut (count stays exact).'),
});

const output = z.object({
  type: z.enum(['node-set', 'number', 'string', 'boolean']),
  count: z.int().min(0),
  values: z.array(z.string()),
  truncated: z.literal(true).optional(),
});

export const xmlQuery = defineTool({
  name: 'xml_query',
  title: 'Query XML with XPath',
  description:
    'Evaluate an XPath 1.0 expression on an XML document and get the exact answer: a count, a value, or the string-value of each matched node (one per line, document order). Use it instead of reading or counting by eye. Prefixed names need `namespaces` (xml_inspect lists them); an empty answer says when a name is in a namespace.',
  input,
  output,
  async run({ xml, xpath, namespaces, max_chars }, { engine, call, cacheAs }) {
    return answering(async () => {
      const budget = { maxChars: max_chars, maxValues: MAX_OUTPUT_VALUES };
      const args = {
        xml: encode(xml),
        xpath,
        namespaces: namespaces ?? {},
        budget,
        ...(cacheAs ? { cacheAs } : {}),
      };
      const { hint, ...result } = await engine.run('query', args, call).catch((error: unknown) => {
        throw withXPath2Hint(error, xpath);
      });
      return toolResult(render(result, xpath) + truncationNote(result, max_chars) + hintText(hint), {
        ...result,
      });
    });
  },
});

function truncationNote(result: z.infer<typeof output>, maxChars: number): string {
  if (!result.truncated) return '';
  const shown = result.values.length;
  const left = result.count - shown;
  const what =
    result.type === 'node-set'
      ? `Showing ${shown} of ${result.count} values${left > 0 ? ` (${left} left out)` : ', the last one cut'}`
      : 'The value was cut';
  return `\n[${what}: output budget of ${MAX_OUTPUT_VALUES} values / ${maxChars} characters. Narrow the query (a predicate, [position() <= 20], count(...)) or raise max_chars.]`;
}

function render(result: z.infer<typeof output>, xpath: string): string {
  return valuesText(result, xpath);
}
