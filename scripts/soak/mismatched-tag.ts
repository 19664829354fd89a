import type { Doc } from './documents.js';
import { serialize } from './documents.js';
import type { Random } from './random.js';

/** The document indented by one space, with one record's number field closed by a wrong tag. */
export function mismatchedTag(r: Random, doc: Doc): { xml: string; line: number } {
  const lines = serialize(doc, 1, 'self-closing').split('\n');
  const tag = doc.kind === 'catalog' ? 'qty' : 'm:rank';
  const j = r.int(0, doc.records.length - 1);
  let seen = -1;
  const index = lines.findIndex((line) => line.startsWith(`  <${tag}>`) && ++seen === j);
  lines[index] = (lines[index] ?? '').replace(`</${tag}>`, `</${tag}x>`);
  return { xml: lines.join('\n'), line: index + 1 };
}
