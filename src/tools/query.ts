import { z } from 'zod';
import { EngineError } from '../engine/errors.js';
import { CUT_MARK } from '../engine/marks.js';
import type { BatchEntry, QueryOutput, QueryResult } from '../engine/query/query.js';
import {
  DEFAULT_OUTPUT_CHARS,
  MAX_BATCH_EXPRESSIONS,
  MAX_OUTPUT_CHARS,
  MAX_OUTPUT_VALUES,
  MAX_XPATH_LENGTH,
  MIN_OUTPUT_CHARS,
} from '../limits.js';
import { answered } from './answer.js';
import { allEmpty, answerText, nodeLines, valueNotes } from './answer-text.js';
import { setAside, withinBatchBudget } from './batch-budget.js';
import { withMissingFunctionHint } from './missing-function-hints.js';
import { namespacesArgument } from './namespaces-argument.js';
import { answering, type Declares, defineTool, documentArguments, encode } from './tool.js';

/**
 * A batch's bounds, checked before zod reads an element (so a huge array is refused at once, as
 * in namespaces-argument.ts) and here rather than in the schema, which keeps tools/list small.
 */
function batchProblem(value: unknown): { message: string; path?: number[] } | undefined {
  if (!Array.isArray(value)) return undefined;
  if (value.length > MAX_BATCH_EXPRESSIONS) {
    return {
      message: `an array of ${value.length} expressions; the limit is ${MAX_BATCH_EXPRESSIONS}: split the batch`,
    };
  }
  if (value.length === 0) return { message: 'an empty array; pass at least one expression' };
  const long = value.findIndex((item) => typeof item === 'string' && item.length > MAX_XPATH_LENGTH);
  return long === -1 ? undefined : { message: TOO_LONG, path: [long] };
}

const TOO_LONG = `longer than the limit of ${MAX_XPATH_LENGTH} characters; split the question into several shorter queries`;

const input = z.object({
  ...documentArguments,
  xpath: z
    .preprocess(
      (value, context) => {
        if (typeof value !== 'string' && !Array.isArray(value)) {
          // Read by parseArguments as "required" or "must be a string, not …".
          context.issues.push({ code: 'invalid_type', expected: 'string', input: value });
        }
        const problem = batchProblem(value);
        if (problem) context.issues.push({ code: 'custom', input: value, ...problem });
        return value;
      },
      z.union([z.string().max(MAX_XPATH_LENGTH, { error: TOO_LONG }), z.array(z.string())], {
        error: 'must be a string or an array of strings',
      }),
    )
    .describe(
      `XPath 1.0 or 3.1 expression, document node as context, e.g. count(//item) or sum(//item ! number(@price)); or an array of up to ${MAX_BATCH_EXPRESSIONS}.`,
    ),
  namespaces: namespacesArgument.optional(),
  output: z
    .enum(['values', 'xml', 'paths'])
    .default('values')
    .describe('Per node: string-value, markup, or location path and line.'),
  max_chars: z
    .int()
    .min(MIN_OUTPUT_CHARS)
    .max(MAX_OUTPUT_CHARS)
    .default(DEFAULT_OUTPUT_CHARS)
    .describe('Output budget in characters; longer answers are cut (count stays exact).'),
});

/**
 * One expression's answer (QueryResult); a batch answers `results` instead, one per expression in
 * order, each of this same shape with its `xpath` and, when it failed, only its `error`. The
 * entries are listed as `{"$ref": "#"}`, this very schema (whatever fields the listing adds to
 * it), which keeps tools/list small.
 */
const output = z.object({
  xpath: z.string().optional(),
  type: z.enum(['node-set', 'number', 'string', 'boolean', 'sequence', 'map', 'array']).optional(),
  count: z.int().min(0).optional(),
  values: z.array(z.string()).optional(),
  lines: z.array(z.int()).optional(),
  truncated: z.literal(true).optional(),
  xpath_version: z.literal('3.1').optional(),
  error: z.string().optional(),
  notes: z.array(z.string()).optional(),
  results: z.array(z.unknown().meta({ $ref: '#' })).optional(),
});

true satisfies Declares<typeof output, QueryResult & { notes?: string[] }>;
true satisfies Declares<typeof output, { xpath: string; error: string }>;

export const xmlQuery = defineTool({
  name: 'xml_query',
  title: 'Query XML with XPath',
  description:
    'Evaluate XPath on an XML document and get the exact answer: a count, a value, or each matched node in document order as its string-value, markup or path (`output`); an array of expressions is answered in order from one parse. XPath 1.0, or XPath 3.1 when 1.0 cannot say it (aggregates over computed values, distinct-values, sort, dates, regex, for/let). Use it instead of reading, counting or computing by eye. Prefixed names need `namespaces` (xml_inspect lists them); an empty answer says when a name is in a namespace.',
  input,
  output,
  async run({ xml, xpath, namespaces, output, max_chars }, { engine, call, cacheAs }) {
    return answering(async () => {
      const budget = { maxChars: max_chars, maxValues: MAX_OUTPUT_VALUES };
      const common = {
        xml: encode(xml),
        namespaces: namespaces ?? {},
        budget,
        output,
        ...(cacheAs ? { cacheAs } : {}),
      };
      if (typeof xpath !== 'string') {
        const valuesBudget = { ...budget, maxChars: max_chars - setAside(xpath.map(headingOf), max_chars) };
        const answer = await engine.run('batch', { ...common, budget: valuesBudget, xpath }, call);
        // The JSON's `{"results":[…]}` around the entries, one comma fewer than entries.
        const { entries, chars } = withinBatchBudget(
          answer.results,
          max_chars - 13,
          (entry, index) =>
            Math.max(
              renderEntry(entry, index, output, max_chars).length,
              JSON.stringify(structuredEntry(entry, output, max_chars)).length,
            ) + 1,
        );
        if (chars > max_chars - 13) {
          throw new EngineError({
            code: 'invalid-argument',
            message: `A batch of ${xpath.length} expressions takes ${chars + 13} characters with no values shown, past max_chars ${max_chars}: its headings and notes alone. Raise max_chars to ${chars + 13} or more, or send fewer expressions.`,
          });
        }
        return answered({
          body: entries.map((entry, index) => renderEntry(entry, index, output, max_chars)).join('\n'),
          facts: { results: entries.map((entry) => structuredEntry(entry, output, max_chars)) },
        });
      }
      const { hint, defaults, ...result } = await engine
        .run('query', { ...common, xpath }, call)
        .catch((error: unknown) => {
          throw withMissingFunctionHint(error);
        });
      return answered({
        body: answerText(result, xpath),
        facts: { ...result },
        notes: resultNotes(result, [hint, defaults], output, max_chars),
      });
    });
  },
});

/**
 * The sentences one answer adds to its values, in both channels: white edges, the language,
 * what the budget cut, why an empty answer is empty (ADR 0018, 0044), and which attributes the
 * DTD supplied.
 */
function resultNotes(
  result: QueryResult,
  explanations: ReadonlyArray<string | undefined>,
  output: QueryOutput,
  maxChars: number,
  batch = false,
): string[] {
  return [...valueNotes(result), truncationNote(result, output, maxChars, batch), ...explanations].filter(
    (note): note is string => note !== undefined && note !== '',
  );
}

function truncationNote(result: QueryResult, output: QueryOutput, maxChars: number, batch = false): string {
  if (!result.truncated) return '';
  const shown = result.values.length;
  const left = result.count - shown;
  const cut = result.values.filter((value) => value.endsWith(CUT_MARK)).length;
  const parts =
    result.type !== 'node-set' && result.type !== 'sequence'
      ? ['The value was cut']
      : [
          left > 0
            ? `Showing ${shown} of ${result.count} ${result.lines ? 'paths' : 'values'} (${left} left out)`
            : '',
          cut > 0 ? `${cut} of the ${shown} shown cut where ${CUT_MARK} stands` : '',
          left === 0 && cut === 0 ? `Showing ${shown} of ${result.count} values, the last one cut` : '',
        ].filter(Boolean);
  const budget = batch
    ? `this expression's share of the ${maxChars}-character, ${MAX_OUTPUT_VALUES}-value budget the batch shares. Ask it alone, narrow it, or raise max_chars.`
    : `output budget of ${MAX_OUTPUT_VALUES} values / ${maxChars} characters. ${
        cut > 0 && output === 'xml'
          ? 'Select inside the nodes (their children, a field) or fewer of them, or raise max_chars.'
          : 'Narrow the query (a predicate, [position() <= 20], count(...)) or raise max_chars.'
      }`;
  return `[${parts.join('; ')}: ${budget}]`;
}

/** A batch entry as structuredContent has it: its facts, and the sentences its text adds. */
function structuredEntry(entry: BatchEntry, asked: QueryOutput, maxChars: number): z.infer<typeof output> {
  // Named as its heading names it: the budget counts it, and the client knows its own array.
  const xpath = headingOf(entry.xpath);
  if ('error' in entry) return { xpath, error: entryError(entry) };
  const { hint, defaults, ...result } = entry;
  const notes = resultNotes(result, [hint, defaults], asked, maxChars, true);
  return notes.length === 0 ? { ...result, xpath } : { ...result, xpath, notes };
}

/** An entry's error, with what to write instead of a function this server's XPath lacks. */
function entryError(entry: Extract<BatchEntry, { error: string }>): string {
  const error = withMissingFunctionHint(new EngineError({ code: entry.code, message: entry.error }));
  const message = error instanceof Error ? error.message : entry.error;
  // The heading names the expression; a long one is not quoted whole again in its error.
  return entry.xpath.length > HEADING_CHARS
    ? message.replaceAll(entry.xpath, headingOf(entry.xpath))
    : message;
}

/**
 * A batch reads as one numbered block per expression, the expression repeated in its heading
 * and the answer indented under it, so no answer can be taken for its neighbour's. The blocks
 * are counted in `max_chars` (batch-budget.ts).
 */
function renderEntry(entry: BatchEntry, index: number, output: QueryOutput, maxChars: number): string {
  const heading = `${index + 1}. \`${headingOf(entry.xpath)}\``;
  if ('error' in entry) return `${heading} → error: ${indent(entryError(entry))}`;
  const { hint, defaults, ...result } = entry;
  const notes = resultNotes(result, [hint, defaults], output, maxChars, true).map((note) => `\n${note}`);
  return `${heading} → ${entryText(entry)}${indent(notes.join(''))}`;
}

/**
 * An expression as its entry's heading: whole up to HEADING_CHARS, else its start and end, which
 * tell it from its neighbours without repeating a long predicate 32 times; structuredContent's
 * `xpath` too, since both count in max_chars (docs/adr/0051).
 */
function headingOf(xpath: string): string {
  if (xpath.length <= HEADING_CHARS) return xpath;
  const half = Math.floor((HEADING_CHARS - 1) / 2);
  // A pair split at either cut would leave a lone surrogate; toWellFormed marks it U+FFFD.
  return `${xpath.slice(0, half)}…${xpath.slice(-half)}`.toWellFormed();
}

const HEADING_CHARS = 120;

function entryText(entry: QueryResult): string {
  if (entry.type === 'sequence' && entry.count !== 1) {
    if (entry.count === 0) return 'the empty sequence.';
    return `${entry.count} items:\n   ${indent(nodeLines(entry))}`;
  }
  if (entry.type !== 'node-set') return scalarText(entry);
  const nodes = `${entry.count} node${entry.count === 1 ? '' : 's'}`;
  if (entry.count === 0) return `${nodes} matched.`;
  if (allEmpty(entry)) return `${nodes}, all with empty text.`;
  if (entry.values.length === 0) return `${nodes}, none shown:`;
  return `${nodes}:\n   ${indent(nodeLines(entry))}`;
}

function scalarText(entry: QueryResult): string {
  const value = entry.values[0] ?? '';
  if (entry.type === 'string' && value === '') return entry.truncated ? '(none shown)' : 'the empty string';
  return value.includes('\n') ? `\n   ${indent(value)}` : value;
}

/** Continuation lines under an entry's heading. */
function indent(text: string): string {
  return text.replaceAll('\n', '\n   ');
}
