import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { EngineError, type EngineErrorCode } from '../engine/errors.js';
import type { EnginePool } from '../engine/runtime/pool.js';
import { LiftedDocument } from '../lifted-document.js';
import { type DocumentScope, StoreUnreachable } from './document-store.js';

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

/** A failure that says the schema cannot be used (RELAX NG's compact syntax, no schema at all): only its handle goes. */
const SCHEMA_REFUSED: EngineErrorCode = 'invalid-schema';

/**
 * The same answer for every handle not held, whatever the reason (made up, expired, evicted, its
 * session ended): it tells nothing of which, nor of anyone else's handles.
 */
export const notHeld = ({ what, text }: Pair): string =>
  `That ${what} is no longer held; send its text as \`${text}\` again.`;

/**
 * A handle this process does not hold, while the shared store every process reads is down: the
 * text may still be there, so the client is told what failed and what works meanwhile.
 */
export const unreachable = ({ what, text }: Pair): string =>
  `That ${what} could not be fetched: the shared store of held texts is unreachable. Send its text as \`${text}\` again, or retry shortly.`;

/** A handle is `d_` and 22 characters; text that opens with markup was meant for the text argument. */
const looksLikeMarkup = (value: string): boolean => /^\s*</.test(value);

/** A document's (or schema's) text sent where its handle goes. */
export const textAsHandle = ({ what, text, handle }: Pair): string =>
  `The \`${handle}\` argument takes the handle an earlier answer gave (\`d_…\`), and this looks like the ${what}'s text itself: pass it as \`${text}\` instead.`;

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
  /**
   * The shared store's copies of the texts this call held, being written: the answer that names
   * their handles waits for it (it settles, never rejects), so another process can read them.
   */
  stored?: Promise<void>;
}

/** Either a refusal to answer with, or the call ready to run. */
export type Resolution = { ok: false; message: string } | ({ ok: true } & ResolvedCall);

/**
 * Turns `document`/`schema` handles into the text they stand for and holds every text sent in
 * `held` (the session's scope, or the one stateless requests share), for the tools that take
 * them (`inputKeys`). With no scope (an instance given no store) nothing is held and every
 * handle is the same miss. A promise only when a handle's text must be fetched from a shared
 * store (docs/adr/0041): a call whose texts are at hand pays no turn of the microtask queue.
 */
export function resolveDocuments(
  toolName: string,
  inputKeys: ReadonlySet<string>,
  args: Record<string, unknown>,
  held: DocumentScope | undefined,
  engine: Engine,
): Resolution | Promise<Resolution> {
  const resolved: Record<string, unknown> = { ...args };
  const handles: Array<[Pair, string]> = [];
  /** The pairs whose text came by handle this call. */
  const byHandle: Pair[] = [];
  const fresh: Array<[Pair, string]> = [];
  const stored: Array<Promise<void>> = [];
  let sentText = false;

  const byItsHandle = (pair: Pair, handle: string, bytes: Uint8Array | undefined): boolean => {
    if (!bytes) return false;
    resolved[pair.text] = new LiftedDocument(bytes);
    handles.push([pair, handle]);
    byHandle.push(pair);
    return true;
  };

  /** The pairs from `first` on, in order; it waits only where a text must be fetched. */
  const from = (first: number): Resolution | Promise<Resolution> => {
    for (let i = first; i < PAIRS.length; i++) {
      const pair = PAIRS[i] as Pair;
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
        if (looksLikeMarkup(handle)) return { ok: false, message: textAsHandle(pair) };
        const found = held?.get(handle);
        if (found instanceof Promise) {
          return found.then(
            (bytes) =>
              byItsHandle(pair, handle, bytes) ? from(i + 1) : { ok: false, message: notHeld(pair) },
            (error: unknown) => {
              if (error instanceof StoreUnreachable) return { ok: false, message: unreachable(pair) };
              throw error;
            },
          );
        }
        if (!byItsHandle(pair, handle, found)) return { ok: false, message: notHeld(pair) };
      } else if (held) {
        const kept = held.hold(text as string | LiftedDocument);
        if (kept) {
          resolved[pair.text] = new LiftedDocument(kept.bytes);
          handles.push([pair, kept.handle]);
          sentText = true;
          if (kept.fresh) fresh.push([pair, kept.handle]);
          if (kept.stored) stored.push(kept.stored);
        }
      }
    }
    return ready();
  };

  const ready = (): Resolution => {
    let refused = false;
    let schemaRefused = false;
    const watching: Engine = {
      run: (op, runArgs, options) =>
        engine.run(op, runArgs, options).catch((error: unknown) => {
          if (error instanceof EngineError && REFUSED.has(error.code)) refused = true;
          if (error instanceof EngineError && error.code === SCHEMA_REFUSED) schemaRefused = true;
          throw error;
        }),
    };
    return {
      ok: true,
      args: resolved,
      engine: watching,
      ...(stored.length === 0 ? {} : { stored: Promise.all(stored).then(() => {}) }),
      answer(result) {
        if (refused) {
          // Documents that cannot be parsed are not kept (this call's new ones; older ones parsed).
          for (const [, handle] of fresh) held?.release(handle);
          return namingHandles(result, byHandle);
        }
        if (schemaRefused) {
          // A text that is no usable schema is not kept as one; the document beside it is.
          for (const [pair, handle] of fresh) if (pair.handle === 'schema') held?.release(handle);
        }
        // A handle evicted while the call ran (other sessions' texts filled the process bound) is
        // not named: the next call would be told it is no longer held (issue 24).
        const live = handles.filter(([, handle]) => held?.holds(handle) ?? false);
        return withHandles(namingHandles(result, byHandle), live, sentText && live.length > 0);
      },
    };
  };

  return from(0);
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
 * first time a text was sent, both channels say what to do with the handle: a line's end in the
 * text, a last note in structuredContent (docs/adr/0049).
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
  return {
    ...result,
    ...(result.structuredContent
      ? {
          structuredContent: withHandleFacts(
            result.structuredContent as Record<string, unknown>,
            handles,
            sentText,
          ),
        }
      : {}),
    content: [...result.content, { type: 'text', text: `${line}${hint}` }],
  };
}

function withHandleFacts(
  structured: Record<string, unknown>,
  handles: Array<[Pair, string]>,
  sentText: boolean,
): Record<string, unknown> {
  const fields = Object.fromEntries(handles.map(([pair, handle]) => [pair.handle, handle]));
  if (!sentText) return { ...structured, ...fields };
  const passed = handles.map(([pair, handle]) => `"${pair.handle}": "${handle}"`).join(' and ');
  const use = `Next time pass ${passed} instead of the ${handles.length === 1 ? 'text' : 'texts'}.`;
  const notes = Array.isArray(structured.notes) ? [...structured.notes, use] : [use];
  return { ...structured, notes, ...fields };
}
