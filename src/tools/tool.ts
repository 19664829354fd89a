import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { EngineError } from '../engine/errors.js';
import type { EnginePool, RunOptions } from '../engine/runtime/pool.js';
import { type DocumentArgument, LiftedDocument } from '../lifted-document.js';
import { withHandleFields } from './document-handles.js';
import { originalPath, restoreProtoKeys, shelterProtoKeys } from './proto-keys.js';
import { loneSurrogateRefusal } from './unicode-arguments.js';
import { unknownArgument } from './unknown-arguments.js';

/** What every tool is given to do its work. */
export interface ToolContext {
  engine: Pick<EnginePool, 'run'>;
  /** Cancellation and the caller's identity, passed on to every engine call. */
  call: RunOptions;
  /** The client whose parsed documents the engine may keep for its next call; undefined: keep none. */
  cacheAs: string | undefined;
  /**
   * The answer's text for UTF-8 bytes, called once per call: the decoded string, or a placeholder
   * the transport writes as the bytes (src/byte-texts.ts).
   */
  textOf(bytes: Uint8Array): string;
}

/**
 * The arguments a tool runs with. A document argument may arrive as bytes the transport lifted
 * from the request line, or held for a handle; by the time the tool runs it is always there
 * (a `document` or `schema` handle was resolved to it, document-handles.ts).
 */
export type ToolArguments<Args> = Omit<Args, DocumentArgument | HandleArgument> & {
  [K in keyof Args & DocumentArgument]-?: Exclude<Args[K], undefined>;
};

/** The arguments that name a held document instead of sending its text. */
type HandleArgument = 'document' | 'schema';

/** One of the five tools: its listing, its arguments, and how it answers. */
export interface ToolDefinition<Args = unknown> {
  name: string;
  title: string;
  description: string;
  input: z.ZodType<Args>;
  /** The shape of `structuredContent`; none for a tool whose text is the whole answer. */
  output?: z.ZodType;
  run(args: ToolArguments<Args>, context: ToolContext): Promise<CallToolResult>;
}

/** docs/behaviour.md §1.3: every tool only reads, and the same call always gives the same answer. */
const ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/**
 * The compile-time half of one contract between the engine and the listing: `true` when every
 * engine result of type `Result` is a valid value of the output schema and carries no field the
 * schema leaves out. Each tool states it beside its schema (`true satisfies Declares<…>`), so a
 * field added to an engine result type and not to the listing, or listed with another type,
 * fails the typecheck. (The server does not validate structuredContent at run time: the low-level
 * `Server` skips it, docs/adr/0002.)
 */
export type Declares<Schema extends z.ZodType, Result> = [Result] extends [z.input<Schema>]
  ? [Exclude<keyof Result, keyof z.input<Schema>>] extends [never]
    ? true
    : false
  : false;

export function defineTool<Args>(definition: ToolDefinition<Args>): ToolDefinition<Args> {
  return definition;
}

/** The `tools/list` entry: JSON Schemas generated from the zod schemas, trimmed of noise a model pays for. */
export function listing(tool: ToolDefinition): Tool {
  const output = tool.output && withNotes(withHandleFields(tool.output, inputKeys(tool)));
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(tool.input, 'input') as Tool['inputSchema'],
    ...(output ? { outputSchema: jsonSchema(output, 'output') as Tool['outputSchema'] } : {}),
    // The title once, where revisions since 2025-06-18 read it; `annotations.title` would repeat it.
    annotations: ANNOTATIONS,
  };
}

/**
 * Every structuredContent may end with `notes`, the sentences its text adds to the facts
 * (answer.ts): listed once here rather than in each tool's schema.
 */
function withNotes(output: z.ZodType): z.ZodType {
  return output instanceof z.ZodObject ? output.extend({ notes: z.array(z.string()).optional() }) : output;
}

/** The names of a tool's arguments. */
export function inputKeys(tool: ToolDefinition): ReadonlySet<string> {
  return new Set(tool.input instanceof z.ZodObject ? Object.keys(tool.input.shape) : []);
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  // The one custom type is documentText, listed as the string a client sends (its meta).
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return JSON.parse(JSON.stringify(rest), (key, value) => (noise(key, value, io) ? undefined : value));
}

/**
 * What zod writes that tells a model or a program nothing, paid for on every turn
 * (docs/tool-design.md): bounds of ±2^53 on every integer, `propertyNames` of type string (every
 * JSON key is one), and in output schemas a minimum of 0 on counts and `additionalProperties:
 * false` (the server's own answers, never validated against more fields than it lists).
 */
function noise(key: string, value: unknown, io: 'input' | 'output'): boolean {
  if ((key === 'maximum' || key === 'minimum') && Math.abs(value as number) === Number.MAX_SAFE_INTEGER) {
    return true;
  }
  if (key === 'propertyNames')
    return typeof value === 'object' && JSON.stringify(value) === '{"type":"string"}';
  return (
    io === 'output' &&
    ((key === 'minimum' && value === 0) || (key === 'additionalProperties' && value === false))
  );
}

/**
 * Validates arguments into a sentence that names the field at fault, or returns the parsed
 * arguments. Strings must be well-formed Unicode (`loneSurrogateRefusal`).
 * A lifted document is a document argument's other form (`documentText`); the transport already
 * checked its bytes.
 */
export function parseArguments<Args>(
  tool: ToolDefinition<Args>,
  raw: unknown,
): { ok: true; args: Record<string, unknown> } | { ok: false; message: string } {
  const unknown = unknownArgument(tool.name, inputKeys(tool), raw);
  if (unknown !== undefined) return { ok: false, message: unknown };
  const sheltered = shelterProtoKeys(raw ?? {});
  const result = tool.input.safeParse(sheltered.raw);
  sheltered.undo();
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = originalPath(issue?.path ?? [], sheltered.renamed);
    const field = path.map(String).join('.') || 'arguments';
    const given = valueAt(raw, path);
    const detail =
      issue?.code !== 'invalid_type'
        ? `is invalid: ${issue?.message ?? 'unexpected value'}`
        : given === undefined
          ? 'is required but was not given'
          : `must be ${expectedType(issue.expected)}, not ${describeValue(given)}`;
    return { ok: false, message: `The \`${field}\` argument of ${tool.name} ${detail}.` };
  }
  restoreProtoKeys(result.data as Record<string, unknown>, sheltered.renamed);
  for (const [field, value] of Object.entries(result.data as Record<string, unknown>)) {
    const refusal = loneSurrogateRefusal(field, value);
    if (refusal !== undefined) return { ok: false, message: refusal };
  }
  return { ok: true, args: result.data as Record<string, unknown> };
}

/** The caller's value at an issue's path; undefined where nothing was given. */
function valueAt(raw: unknown, path: PropertyKey[]): unknown {
  let value = raw;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  record: 'an object',
};

function expectedType(expected: string): string {
  return TYPE_NAMES[expected] ?? `of type ${expected}`;
}

/** Short, and never the whole value: a wrong argument may be a whole document. */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return TYPE_NAMES[typeof value] ?? typeof value;
}

/** A result the model reads as "the tool ran and could not do this". */
export function toolError(message: string, structuredContent?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: message }],
    isError: true,
    ...(structuredContent ? { structuredContent } : {}),
  };
}

export function toolResult(text: string, structuredContent?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], ...(structuredContent ? { structuredContent } : {}) };
}

/** Engine failures become `isError` results; anything else is a bug and propagates. */
export async function answering(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof EngineError) return toolError(error.message);
    throw error;
  }
}

/**
 * UTF-8 bytes of a document argument, to be transferred to a worker. `Buffer.from` is ~3×
 * faster than TextEncoder on Node 20 for multi-megabyte strings, and gives large strings a buffer
 * of their own (small ones share a pool and are copied instead of transferred).
 */
export const encode = (text: string | LiftedDocument): Uint8Array =>
  text instanceof LiftedDocument ? text.bytes : Buffer.from(text, 'utf8');

/**
 * Every tool's document: its text as `xml`, or as `document` the handle an earlier answer gave
 * (document-handles.ts). Described once, on `xml`: tools/list sits in the model's
 * context on every turn, and the answers' last line says what a handle is for.
 */
export const documentArguments = {
  xml: documentText()
    .describe('The XML text (not a path or URL), once; then its handle as document.')
    .optional(),
  document: z.string().optional(),
};

/** xml_validate's schema: its text as `xsd`, or its handle as `schema`. */
export const schemaArguments = {
  xsd: documentText()
    .describe('The schema text: XSD, RELAX NG (XML), Schematron or DTD; then its handle as schema.')
    .optional(),
  schema: z.string().optional(),
};

/**
 * A document's text: a string, or the bytes a transport lifted from the request line in its
 * place (lifted-document.ts). Listed as `{"type": "string"}`, which is what a client sends; a
 * value of any other type is refused as "must be a string, not …".
 */
function documentText() {
  return z
    .custom<string | LiftedDocument>()
    .superRefine((value, context) => {
      if (typeof value !== 'string' && !(value instanceof LiftedDocument)) {
        context.addIssue({ code: 'invalid_type', expected: 'string', input: value });
      }
    })
    .meta({ type: 'string' });
}
