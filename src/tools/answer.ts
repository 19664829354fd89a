import type { CallToolResult } from '@modelcontextprotocol/server';

/*
 * One answer, two channels (docs/adr/0049-every-channel-a-whole-answer.md). Clients show their
 * model either the text or the JSON of `structuredContent`, never reliably both: each must be
 * the whole answer. A tool states its answer once, as its facts and the sentences it adds to
 * them, and both channels are written from that here, so a hint added to one cannot be missing
 * from the other.
 */

/**
 * A line of the text: what the facts hold, in words, or a note said where it belongs among them
 * (xml_inspect's binding sentence after its namespaces), which structuredContent lists in `notes`.
 */
export type Line = string | { note: string };

/** What a tool says: the facts, what the text makes of them, and the sentences about them. */
export interface Answer {
  /** The text's first lines: the values, the verdict, the summary (what `facts` hold, in words). */
  body: string | readonly Line[];
  /** structuredContent's fields: the same facts as data. */
  facts: Record<string, unknown>;
  /**
   * Every sentence the text says beyond the facts (hints, warnings, what was cut and how to get
   * the rest, next steps), in the order the text gives them: lines after the body there, the
   * `notes` array in structuredContent. Empty strings are left out.
   */
  notes?: readonly string[];
}

/** An answer as a result: text, then structuredContent with `notes` last among the facts. */
export function answered(answer: Answer, options: { isError?: boolean } = {}): CallToolResult {
  const lines = [
    ...(typeof answer.body === 'string' ? [answer.body] : answer.body),
    ...(answer.notes ?? []).map((note) => ({ note })),
  ].filter((line) => (typeof line === 'string' ? true : line.note !== ''));
  const notes = lines.flatMap((line) => (typeof line === 'string' ? [] : [line.note]));
  const text = lines.map((line) => (typeof line === 'string' ? line : line.note)).join('\n');
  return {
    content: [{ type: 'text', text }],
    structuredContent: notes.length === 0 ? answer.facts : { ...answer.facts, notes },
    ...(options.isError ? { isError: true } : {}),
  };
}
