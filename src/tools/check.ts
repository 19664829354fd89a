import { z } from 'zod';
import type { CheckResult } from '../engine/check.js';
import { EngineError } from '../engine/errors.js';
import { type Declares, defineTool, documentArguments, encode, toolError, toolResult } from './tool.js';

const output = z.object({
  wellFormed: z.boolean(),
  elements: z.int().min(0).optional(),
  nodes: z.int().min(0).optional(),
  error: z.object({ message: z.string(), line: z.int().optional(), column: z.int().optional() }).optional(),
});

true satisfies Declares<typeof output, CheckResult>;

export const xmlCheck = defineTool({
  name: 'xml_check',
  title: 'Check XML well-formedness',
  description:
    'Check whether a document is well-formed XML. Returns the node count, or the line, column and reason of the first error.',
  input: z.object(documentArguments),
  output,
  async run({ xml }, { engine, call }) {
    try {
      const { elements, nodes } = await engine.run('check', { xml: encode(xml) }, call);
      return toolResult(
        `Well-formed: ${nodes} node${nodes === 1 ? '' : 's'} (${elements} element${elements === 1 ? '' : 's'}).`,
        {
          wellFormed: true,
          elements,
          nodes,
        },
      );
    } catch (error) {
      if (!(error instanceof EngineError)) throw error;
      if (error.code !== 'not-well-formed') return toolError(error.message);
      const { code: _code, ...detail } = error.toData();
      return toolError(error.message, { wellFormed: false, error: detail });
    }
  },
});
