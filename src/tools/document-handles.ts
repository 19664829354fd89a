import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { EngineError, type EngineErrorCode } from '../engine/errors.js';
import type { EnginePool } from '../engine/runtime/pool.js';
import { LiftedDocument } from '../lifted-document.js';
import type { DocumentScope } from './document-store.js';

/*
 * Document handles, the call's side (docs/adr/0016-document-handles.md, docs/adr/0039): turns a
 * `document`/`schema` handle into the text held for it, holds every text sent, and names the
 * handles in the answer. Where the texts are kept is the store's business (document-store.ts).
 */

/** A text argument and the argument that names it by handle. */
interface Pair {
  text: 'xml' | 'xsd';
  handle: 'document' | 'schema';
  what: 'document' | 'schema';
}

const PAIRS: readonly Pair[] = [
  { text: 'xml', handle: 'document', what: 'document' },
  { text: 'xsd', handle: 'schema', what: 'schema' },
];

/** Failures that say the text itself cannot be used: its handle would only fail the same way. */
const REFUSED: ReadonlySet<EngineErrorCode> = new Set(['not-well-formed', 'too-large', 'limit-exceeded']);

/**
 * The same answer for every handle not held, whatever the reason (made up, expired, evicted, its
 * session ended): it tells nothing of which, nor of anyone else's handles.
 */
export const notHeld = ({ what, text }: Pair): string =>
  `That ${what} is no longer held; send its text as \`${text}\` again.`;

type Engine = Pick<EnginePool, 'run'>;

/** A tool's `structuredContent` with the handles of the documents it takes (`document`, `schema`). */
export function withHandleFields(output: z.ZodType, inputKeys: ReadonlySet<string>): z.ZodType {
  if (!(output instanceof z.ZodObject)) return output;
  const fields = PAIRS.filter((pair) => inputKeys.has(pair.handle)).map((pair) => [
    pair.handle,
    z.string().optional(),
  ]);
  return output.extend(Object.fromEntries(fields));
}

export interface ResolvedCall {
  /** The arguments with every document as its text (a held document as its bytes). */
  args: Record<string, unknown>;
  /** The engine, watching for a refusal of the call's documents. */
  engine: Engine;
  /** The tool's answer with the handles of the call's documents added. */
  answer(result: CallToolResult): CallToolResult;
}

/**
 * Turns `document`/`schema` handles into the text they stand for and holds every text sent in
 * `held` (the session's scope, or the one stateless requests share), for the tools that take
 * them (`inputKeys`). With no scope (an instance given no store) nothing is held and every
 * handle is the same miss.
 */
export function resolveDocuments(
  toolName: string,
  inputKeys: ReadonlySet<string>,
  args: Record<string, unknown>,
  held: DocumentScope | undefined,
  engine: Engine,
): { ok: false; message: string } | ({ ok: true } & ResolvedCall) {
  const resolved: Record<string, unknown> = { ...args };
  const handles: Array<[Pair, string]> = [];
  /** The pairs whose text came by handle this call. */
  const byHandle: Pair[] = [];
  const fresh: string[] = [];
  let sentText = false;
  for (const pair of PAIRS) {
    if (!inputKeys.has(pair.handle)) continue;
    const text = args[pair.text];
    const handle = args[pair.handle];
    delete resolved[pair.handle];
    if (text !== undefined && handle !== undefined) {
      return {
        ok: false,
        message: `Pass either \`${pair.text}\` or \`${pair.handle}\` to ${toolName}, not both: \`${pair.handle}\` names a ${pair.what} already sent.`,
      };
    }
    if (text === undefined && handle === undefined) {
      return {
        ok: false,
        message: `${toolName} needs the ${pair.what}: its text as \`${pair.text}\`, or as \`${pair.handle}\` the handle an earlier answer gave.`,
      };
    }
    if (typeof handle === 'string') {
      const bytes = held?.get(handle);
      if (!bytes) return { ok: false, message: notHeld(pair) };
      resolved[pair.text] = new LiftedDocument(bytes);
      handles.push([pair, handle]);
      byHandle.push(pair);
    } else if (held) {
      const kept = held.hold(text as string | LiftedDocument);
      if (kept) {
        resolved[pair.text] = new LiftedDocument(kept.bytes);
        handles.push([pair, kept.handle]);
        sentText = true;
        if (kept.fresh) fresh.push(kept.handle);
      }
    }
  }
  let refused = false;
  const watching: Engine = {
    run: (op, runArgs, options) =>
      engine.run(op, runArgs, options).catch((error: unknown) => {
        if (error instanceof EngineError && REFUSED.has(error.code)) refused = true;
        throw error;
      }),
  };
  return {
    ok: true,
    args: resolved,
    engine: watching,
    answer(result) {
      if (refused) {
        // Documents that cannot be parsed are not kept (this call's new ones; older ones parsed).
        for (const handle of fresh) held?.release(handle);
        return namingHandles(result, byHandle);
      }
      // A handle evicted while the call ran (other sessions' texts filled the process bound) is
      // not named: the next call would be told it is no longer held (issue 24).
      const live = handles.filter(([, handle]) => held?.holds(handle) ?? false);
      return withHandles(namingHandles(result, byHandle), live, sentText && live.length > 0);
    },
  };
}

/**
 * The engine names the argument a text came in (`xsd`); a text sent by handle came in as the
 * handle's argument (`schema`), and the refusal must say so (issue 24).
 */
function namingHandles(result: CallToolResult, byHandle: readonly Pair[]): CallToolResult {
  if (!result.isError || byHandle.length === 0) return result;
  const content = result.content.map((block) => {
    if (block.type !== 'text') return block;
    let text = block.text;
    for (const pair of byHandle) {
      text = text
        .replaceAll(`The \`${pair.text}\` argument's `, `The text behind \`${pair.handle}\`: its `)
        .replaceAll(`The \`${pair.text}\` argument`, `The text behind \`${pair.handle}\``);
    }
    return { ...block, text };
  });
  return { ...result, content };
}

/**
 * The handles as `structuredContent` fields and as one last line of text, in a content block of
 * its own so that the tool's text (xml_format's: the new document) stays exactly what it was. The
 * first time a text was sent, the line says what to do with the handle.
 */
function withHandles(
  result: CallToolResult,
  handles: Array<[Pair, string]>,
  sentText: boolean,
): CallToolResult {
  if (handles.length === 0) return result;
  const line = handles.map(([pair, handle]) => `${pair.handle}: ${handle}`).join(', ');
  const hint = !sentText
    ? ''
    : handles.length === 1
      ? ` (next time pass this as \`${handles[0]?.[0].handle}\` instead of the text)`
      : ` (next time pass these as ${handles.map(([pair]) => `\`${pair.handle}\``).join(' and ')} instead of the texts)`;
  const structured = result.structuredContent
    ? {
        structuredContent: {
          ...result.structuredContent,
          ...Object.fromEntries(handles.map(([pair, handle]) => [pair.handle, handle])),
        },
      }
    : {};
  return {
    ...result,
    ...structured,
    content: [...result.content, { type: 'text', text: `${line}${hint}` }],
  };
}
