import { isDeepStrictEqual } from 'node:util';
import { expectError, type Plan, textOf } from './answer.js';
import type { Doc } from './documents.js';
import { mismatchedTag } from './mismatched-tag.js';
import type { Random } from './random.js';

interface CheckAnswer {
  wellFormed?: boolean;
  error?: { line?: number; column?: number };
}

/** An xml_check call: mostly of the well-formed document, else of one with a wrong tag or cut short. */
export function planCheck(r: Random, doc: Doc, huge: boolean): Plan {
  const f = doc.facts;
  const roll = r.next();
  if (huge || roll < 0.75) {
    return {
      tool: 'xml_check',
      args: { xml: doc.xml },
      label: 'check.well-formed',
      check(result) {
        if (result.isError) return `unexpected isError: ${textOf(result)}`;
        const want = { wellFormed: true, elements: f.totalElements, nodes: f.nodes };
        if (!isDeepStrictEqual(result.structuredContent, want)) {
          return `structuredContent ${JSON.stringify(result.structuredContent)} != ${JSON.stringify(want)}`;
        }
        const text = `Well-formed: ${f.nodes} nodes (${f.totalElements} elements).`;
        return textOf(result) === text ? undefined : `text ${JSON.stringify(textOf(result))} != ${text}`;
      },
    };
  }
  if (roll < 0.9) {
    const { xml, line } = mismatchedTag(r, doc);
    return {
      tool: 'xml_check',
      args: { xml },
      label: 'check.malformed-tag',
      check: expectError(
        /not well-formed XML: line \d+, column \d+: Opening and ending tag mismatch/,
        (res) => {
          const sc = res.structuredContent as CheckAnswer | undefined;
          const column = sc?.error?.column;
          if (sc?.wellFormed !== false || sc?.error?.line !== line || typeof column !== 'number') {
            return `expected { wellFormed: false, error.line: ${line} }, got ${JSON.stringify(sc)}`;
          }
          return textOf(res)?.includes(`line ${line}, column ${column}:`)
            ? undefined
            : `text does not give line ${line}`;
        },
      ),
    };
  }
  return {
    tool: 'xml_check',
    args: { xml: doc.xml.slice(0, -(doc.root.length + 3)) },
    label: 'check.truncated',
    check: expectError(/not well-formed XML: line 1, column \d+: Premature end of data/, (res) => {
      const sc = res.structuredContent as CheckAnswer | undefined;
      return sc?.wellFormed === false && sc?.error?.line === 1
        ? undefined
        : `structuredContent ${JSON.stringify(res.structuredContent)}`;
    }),
  };
}
