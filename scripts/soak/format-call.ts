import { clip, firstDifference, type Plan, textOf } from './answer.js';
import { type Doc, type EmptyStyle, serialize } from './documents.js';
import type { Random } from './random.js';

/** An xml_format call: the document with 0–4 spaces of indent and one way of writing empty elements. */
export function planFormat(r: Random, doc: Doc): Plan {
  const indent = r.pick([0, 0, 1, 2, 4]);
  const style = r.pick<EmptyStyle>(['self-closing', 'spaced', 'expanded']);
  const args: Record<string, unknown> = { xml: doc.xml, indent, empty_elements: style };
  const defaultStyle = r.chance(0.3);
  if (defaultStyle) delete args.empty_elements;
  const want = serialize(doc, indent, defaultStyle ? 'self-closing' : style);
  return {
    tool: 'xml_format',
    args,
    label: `format.indent${indent}`,
    check(result) {
      if (result.isError) return `unexpected isError: ${clip(textOf(result))}`;
      const text = textOf(result);
      if (text !== want) return `formatted text differs at ${firstDifference(text, want)}`;
      // The document is the answer, sent once as text (docs/tool-design.md).
      return result.structuredContent === undefined ? undefined : 'unexpected structuredContent';
    },
  };
}
