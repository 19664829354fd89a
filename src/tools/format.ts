import { z } from 'zod';
import { MAX_INDENT } from '../limits.js';
import { integerFromText } from './lenient-arguments.js';
import { answering, defineTool, documentArguments, encode, toolResult } from './tool.js';

export const xmlFormat = defineTool({
  name: 'xml_format',
  title: 'Format XML',
  description:
    'Pretty-print (indent > 0) or minify (indent 0) a document without changing its data: mixed content, xml:space="preserve", comments, CDATA and PIs are kept. Returns the new text.',
  input: z.object({
    ...documentArguments,
    indent: z
      .preprocess(integerFromText, z.int().min(0).max(MAX_INDENT).default(0))
      .describe('Spaces per level; 0 minifies.'),
    empty_elements: z
      .enum(['self-closing', 'spaced', 'expanded'])
      .default('self-closing')
      .describe('Empty elements as <a/>, <a /> or <a></a>.'),
  }),
  // No structuredContent: the text is the document itself, and a structured copy would double
  // a reply that reaches 18 MiB for an indented 8 MiB document (docs/tool-design.md).
  async run({ xml, indent, empty_elements }, { engine, call, textOf }) {
    return answering(async () => {
      const result = await engine.run(
        'format',
        { xml: encode(xml), indent, emptyElements: empty_elements },
        call,
      );
      // The bytes were transferred from the worker; over stdio they are written as they are.
      return toolResult(textOf(result.xml));
    });
  },
});
