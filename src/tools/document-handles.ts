import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { EngineError, type EngineErrorCode } from '../engine/errors.js';
import { fingerprint, sameBytes } from '../engine/runtime/document-cache.js';
import type { EnginePool } from '../engine/runtime/pool.js';
import { LiftedDocument } from '../lifted-document.js';
import {
  HELD_DOCUMENT_OVERHEAD_BYTES,
  MAX_DOCUMENT_BYTES,
  MAX_HELD_PROCESS_BYTES,
  MAX_HELD_SESSION_BYTES,
} from '../limits.js';
import { newHandle } from './random-handle.js';

/*
 * Document handles (docs/adr/0016-document-handles.md). A session that sends a document's text
 * once gets a handle for it, and names the document by its handle afterwards. The text is kept
 * here, on the main thread, in shared memory: a call by handle hands the same bytes to a worker
 * without copying them, and a worker that was replaced (recycled, crashed, too big a heap) parses
 * them again through the session's parse cache, as on a first call.
 */

/** What `newHandle` makes (random-handle.ts): `d_` and 128 random bits, base64url. */
const HANDLE = /^d_[A-Za-z0-9_-]{22}$/;

export interface HeldLimits {
  /** Text one session's handles keep; its least recently used document goes first. */
  sessionBytes: number;
  /** Text every session's handles keep together; the least recently used document goes first. */
  processBytes: number;
}

const DEFAULT_LIMITS: HeldLimits = {
  sessionBytes: MAX_HELD_SESSION_BYTES,
  processBytes: MAX_HELD_PROCESS_BYTES,
};

interface Held {
  readonly handle: string;
  readonly bytes: Uint8Array;
  /** The text and what holding it costs beyond the text, counted against both bounds. */
  readonly charge: number;
  /** Its length and fingerprint: the same text sent again gets the same handle. */
  readonly key: string;
  readonly session: SessionDocuments;
}

/**
 * What the whole process holds for handles: one least-recently-used order over every session's
 * documents, so the process bound evicts the document used longest ago, whoever sent it.
 */
export class HeldDocuments {
  readonly limits: HeldLimits;
  readonly #order = new Map<string, Held>();
  #bytes = 0;

  constructor(limits: Partial<HeldLimits> = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /** Bytes held for every session (the text and each document's overhead). */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#order.size;
  }

  /** A new session's handles; close it when the session ends. */
  open(): SessionDocuments {
    return new SessionDocuments(this);
  }

  /** Makes room for `charge` more bytes in the process, least recently used first. */
  admit(held: Held): void {
    for (const oldest of this.#order.values()) {
      if (this.#bytes + held.charge <= this.limits.processBytes) break;
      oldest.session.release(oldest.handle);
    }
    this.#order.set(held.handle, held);
    this.#bytes += held.charge;
  }

  touch(held: Held): void {
    this.#order.delete(held.handle);
    this.#order.set(held.handle, held);
  }

  drop(held: Held): void {
    if (this.#order.delete(held.handle)) this.#bytes -= held.charge;
  }
}

/**
 * One session's handles. Lookups only ever see this session's own map, so a handle from another
 * session, a made-up one, an evicted one and one whose session ended are the same miss.
 */
export class SessionDocuments {
  readonly #process: HeldDocuments;
  /** Handle → document, least recently used first. */
  readonly #byHandle = new Map<string, Held>();
  readonly #byKey = new Map<string, Held>();
  #bytes = 0;
  #closed = false;

  constructor(process: HeldDocuments) {
    this.#process = process;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#byHandle.size;
  }

  /**
   * Keeps a copy of the text and answers its handle (the handle it already has when the session
   * sent the same text before); undefined when it cannot be held (over the document limit, or the
   * session ended).
   */
  hold(text: string | LiftedDocument): { handle: string; bytes: Uint8Array; fresh: boolean } | undefined {
    const length = text instanceof LiftedDocument ? text.bytes.byteLength : Buffer.byteLength(text, 'utf8');
    const charge = length + HELD_DOCUMENT_OVERHEAD_BYTES;
    if (this.#closed || length > MAX_DOCUMENT_BYTES || charge > this.#process.limits.sessionBytes) {
      return undefined;
    }
    // Encoded (or copied) once, straight into memory the workers can read without a copy.
    const bytes = new Uint8Array(new SharedArrayBuffer(length));
    if (text instanceof LiftedDocument) bytes.set(text.bytes);
    else Buffer.from(bytes.buffer).write(text, 'utf8');
    const key = `${length}:${fingerprint(bytes)}`;
    const known = this.#byKey.get(key);
    if (known && sameBytes(known.bytes, bytes)) {
      this.#touch(known);
      return { handle: known.handle, bytes: known.bytes, fresh: false };
    }
    const held: Held = { handle: newHandle(), bytes, charge, key, session: this };
    for (const oldest of this.#byHandle.values()) {
      if (this.#bytes + charge <= this.#process.limits.sessionBytes) break;
      this.release(oldest.handle);
    }
    this.#byHandle.set(held.handle, held);
    this.#byKey.set(key, held);
    this.#bytes += charge;
    this.#process.admit(held);
    return { handle: held.handle, bytes, fresh: true };
  }

  /** The text of one of this session's handles, or undefined for any other string. */
  get(handle: string): Uint8Array | undefined {
    const held = HANDLE.test(handle) ? this.#byHandle.get(handle) : undefined;
    if (!held) return undefined;
    this.#touch(held);
    return held.bytes;
  }

  /** Whether the handle is still held (an answer names only those), without touching its turn. */
  holds(handle: string): boolean {
    return this.#byHandle.has(handle);
  }

  release(handle: string): void {
    const held = this.#byHandle.get(handle);
    if (!held) return;
    this.#byHandle.delete(handle);
    if (this.#byKey.get(held.key) === held) this.#byKey.delete(held.key);
    this.#bytes -= held.charge;
    this.#process.drop(held);
  }

  /** Frees every handle; the session has ended. */
  close(): void {
    this.#closed = true;
    for (const handle of [...this.#byHandle.keys()]) this.release(handle);
  }

  #touch(held: Held): void {
    this.#byHandle.delete(held.handle);
    this.#byHandle.set(held.handle, held);
    this.#process.touch(held);
  }
}

/** The handles of the whole process; `createServer` may be given another (tests, smaller bounds). */
export const heldDocuments = new HeldDocuments();

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

/** The same answer for every handle this session does not hold: it tells nothing of others. */
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
 * Turns `document`/`schema` handles into the text they stand for and holds every text sent, for
 * the tools that take them (`inputKeys`). `held` is undefined for a request with no session
 * (2026-07-28 over HTTP), where a handle is refused with the reason.
 */
export function resolveDocuments(
  toolName: string,
  inputKeys: ReadonlySet<string>,
  args: Record<string, unknown>,
  held: SessionDocuments | undefined,
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
      if (!held) {
        return {
          ok: false,
          message: `This request has no session (stateless HTTP: a 2026-07-28 request, or a server run with --stateless), so no ${pair.what} is held: send its text as \`${pair.text}\`.`,
        };
      }
      const bytes = held.get(handle);
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
