import {
  HELD_DOCUMENT_OVERHEAD_BYTES,
  MAX_DOCUMENT_BYTES,
  MAX_HELD_PROCESS_BYTES,
  MAX_HELD_SESSION_BYTES,
} from '../../src/limits.js';
import { notHeld } from '../../src/tools/document-handles.js';
import { type Plan, type ToolAnswer, textOf } from './answer.js';
import { checkAnswer } from './call-mix.js';

const HANDLE_PAIRS = [
  ['xml', 'document'],
  ['xsd', 'schema'],
] as const;
const HANDLE_IN_LINE = /\b(document|schema): (d_[A-Za-z0-9_-]{22})\b/g;

/** The refusals of a handle no longer held, by the argument refused: the call is then sent again as text. */
const NOT_HELD = new Map([
  [notHeld({ text: 'xml', handle: 'document', what: 'document' }), 'document'],
  [notHeld({ text: 'xsd', handle: 'schema', what: 'schema' }), 'schema'],
] as const);

type Args = Record<string, unknown>;

/**
 * A client that uses document handles the way a model should (issue 13): it remembers the handle
 * each answer gives for a text it sent, and sends every other call (`byHandle(index)`) whose
 * texts it has handles for by their handles instead. Every answer's handles are checked
 * (the last content block and `structuredContent` agree; a call by handle answers the same
 * handle; a successful call that sent a text gets its handle, with or without a session: ADR
 * 0039), then taken out, so the call's own check sees the answer it always saw.
 */
export class HandleMix {
  #handles = new Map<string, string>();
  /** The texts the session holds, as far as this client can know: text → UTF-8 bytes, least recently used first. */
  #held = new Map<string, number>();
  #heldBytes = 0;
  #sessionBytes: number;
  /** Each call's arguments → the texts it held first (let go again if the call is refused). */
  #fresh = new WeakMap<Args, string[]>();
  /** Calls sent by handle, and those refused as not held (then sent again as text). */
  stats = { byHandle: 0, notHeld: 0 };

  /**
   * `session`: whether the client has a session, whose texts are bounded by the session's bound;
   * a stateless client's texts share the process's bound with every other stateless request's
   * (ADR 0039). `sessionBytes`: that bound, when the server was given another.
   */
  constructor({ session = true, sessionBytes }: { session?: boolean; sessionBytes?: number } = {}) {
    this.#sessionBytes = sessionBytes ?? (session ? MAX_HELD_SESSION_BYTES : MAX_HELD_PROCESS_BYTES);
  }

  /**
   * Bytes of text the session holds by design, as this client can know them without asking the
   * server: the store's rules (src/tools/document-handles.ts) applied to what it sent, with the
   * store's bounds (src/limits.ts). A text is held when a call sends it and used when a call
   * names it by handle, in the order the calls are sent; the least recently used go first past
   * the session's bound; a call refused for its text (no handle in the answer) lets go the texts
   * it held first; a handle refused as no longer held is gone. test/soak-held-mirror.test.ts
   * checks this against the store after every call. It is what the design holds, never what the
   * server reports of itself, so a store that keeps more than that still shows as growth.
   */
  get heldBytes(): number {
    return this.#heldBytes;
  }

  /** Texts in `heldBytes`. */
  get heldTexts(): number {
    return this.#held.size;
  }

  /** Holds `text` as the most recently used; true when it was not held before. */
  #hold(text: string): boolean {
    if (this.#touch(text)) return false;
    const bytes = Buffer.byteLength(text, 'utf8');
    const charge = bytes + HELD_DOCUMENT_OVERHEAD_BYTES;
    if (bytes > MAX_DOCUMENT_BYTES || charge > this.#sessionBytes) return false;
    // What the server counts against the bound: each text and its overhead.
    for (const oldest of this.#held.keys()) {
      if (this.#heldBytes + this.#held.size * HELD_DOCUMENT_OVERHEAD_BYTES + charge <= this.#sessionBytes)
        break;
      this.#drop(oldest);
    }
    this.#held.set(text, bytes);
    this.#heldBytes += bytes;
    return true;
  }

  #touch(text: string): boolean {
    const bytes = this.#held.get(text);
    if (bytes === undefined) return false;
    this.#held.delete(text);
    this.#held.set(text, bytes);
    return true;
  }

  #drop(text: string): void {
    const bytes = this.#held.get(text);
    if (bytes === undefined) return;
    this.#held.delete(text);
    this.#heldBytes -= bytes;
  }

  /** The arguments to send for `plan`: by handle on odd indexes, where the handles are known. */
  arguments(plan: Plan, index: number): Args {
    const sent = this.#choose(plan, index);
    const fresh: string[] = [];
    for (const [text, handle] of HANDLE_PAIRS) {
      const value = plan.args[text];
      if (typeof value !== 'string') continue;
      if (sent[handle] !== undefined) this.#touch(value);
      else if (this.#hold(value)) fresh.push(value);
    }
    this.#fresh.set(sent, fresh);
    return sent;
  }

  #choose(plan: Plan, index: number): Args {
    if (index % 2 === 0) return plan.args;
    const args = { ...plan.args };
    let replaced = false;
    for (const [text, handle] of HANDLE_PAIRS) {
      const value = args[text];
      const known = typeof value === 'string' ? this.#handles.get(value) : undefined;
      if (!known) continue;
      delete args[text];
      args[handle] = known;
      replaced = true;
    }
    if (replaced) this.stats.byHandle++;
    return replaced ? args : plan.args;
  }

  /** `{ result, problem }`: the answer without its handles, or what is wrong with them. */
  settle(plan: Plan, sent: Args, result: ToolAnswer): { result?: ToolAnswer; problem?: string } {
    const content: unknown[] = Array.isArray(result.content) ? result.content : [];
    const lastBlock = content.length > 1 ? (content.at(-1) as { text?: unknown } | undefined) : undefined;
    const last = typeof lastBlock?.text === 'string' ? lastBlock.text : undefined;
    const inLine: Record<string, string> = {};
    if (last?.startsWith('document: ')) {
      for (const [, name, handle] of last.matchAll(HANDLE_IN_LINE)) {
        if (name !== undefined && handle !== undefined) inLine[name] = handle;
      }
    }
    const given = Object.keys(inLine).length > 0;
    // An answer without handles: the call was refused, and what it held first is let go.
    if (!given) for (const text of this.#fresh.get(sent) ?? []) this.#drop(text);
    const sc = result.structuredContent;
    for (const [text, handle] of HANDLE_PAIRS) {
      if (sc && (sc[handle] !== undefined || (given && plan.tool !== 'xml_format' && inLine[handle]))) {
        if (sc[handle] !== inLine[handle]) {
          return {
            problem: `structuredContent.${handle} ${sc[handle]} != the last line's ${inLine[handle]}`,
          };
        }
      }
      if (sent[handle] !== undefined && !result.isError && inLine[handle] !== sent[handle]) {
        return { problem: `sent ${handle} ${sent[handle]}, the answer names ${inLine[handle]}` };
      }
      const sentText = sent[text];
      if (typeof sentText === 'string') {
        const given = inLine[handle];
        if (given) this.#handles.set(sentText, given);
        else if (!result.isError) return { problem: `no handle for the ${text} sent` };
        // A refused text alone (a schema that is no usable schema) is let go, its neighbour kept.
        else if (this.#fresh.get(sent)?.includes(sentText)) this.#drop(sentText);
      }
    }
    if (!given) return { result };
    const stripped: ToolAnswer = { ...result, content: content.slice(0, -1) };
    if (sc) {
      const { document: _document, schema: _schema, notes, ...rest } = sc as typeof sc & { notes?: unknown };
      // The note that says to pass the handles next time goes with them (docs/adr/0049).
      const kept = Array.isArray(notes) ? [...(notes as string[])] : [];
      const use = kept.at(-1)?.startsWith('Next time pass "') ? kept.pop() : undefined;
      const missed = use && Object.values(inLine).find((handle) => !use.includes(`"${handle}"`));
      if (missed) return { problem: `the handle's note ${JSON.stringify(use)} does not name ${missed}` };
      stripped.structuredContent = kept.length > 0 ? { ...rest, notes: kept } : rest;
    }
    return { result: stripped };
  }

  /**
   * The call by handle was refused as not held (`which`: the argument refused): forget the handles
   * it used (it is sent again as text).
   */
  refused(sent: Args, which: 'document' | 'schema' = 'document'): void {
    this.stats.notHeld++;
    // The server stops at the handle it does not hold: a schema sent beside a document not held
    // was not held either, but a document sent beside a schema not held was (it comes first).
    if (which === 'document') for (const text of this.#fresh.get(sent) ?? []) this.#drop(text);
    for (const [, handle] of HANDLE_PAIRS) {
      if (sent[handle] === undefined) continue;
      for (const [key, value] of this.#handles) {
        if (value !== sent[handle]) continue;
        this.#handles.delete(key);
        this.#drop(key);
      }
    }
  }
}

/**
 * One call through `send(args)` with handles in the mix: by handle where `mix` says so, sent
 * again as text when the handle is no longer held. Resolves `{ result, problem }`.
 */
export async function callWithHandles(
  mix: HandleMix,
  plan: Plan,
  index: number,
  send: (args: Args) => Promise<ToolAnswer>,
): Promise<{ result?: ToolAnswer; problem?: string | undefined }> {
  const sent = mix.arguments(plan, index);
  const answer = await send(sent);
  const refused = sent !== plan.args && answer.isError ? NOT_HELD.get(textOf(answer) ?? '') : undefined;
  if (refused) {
    mix.refused(sent, refused);
    return callWithHandles(mix, plan, 0, send);
  }
  const settled = mix.settle(plan, sent, answer);
  if (settled.problem || !settled.result) return settled;
  return { result: settled.result, problem: checkAnswer(plan, settled.result) };
}

/** The part of an SDK client the drivers call tools through. */
export interface ToolCaller {
  callTool(params: { name: string; arguments: Args }, options: { timeout: number }): Promise<unknown>;
}

/** `callWithHandles` through a client's `callTool`, each call bounded by `timeoutMs`: the soak's and the load's way. */
export function callThroughClient(
  client: ToolCaller,
  mix: HandleMix,
  plan: Plan,
  index: number,
  timeoutMs: number,
): ReturnType<typeof callWithHandles> {
  return callWithHandles(
    mix,
    plan,
    index,
    (args) =>
      client.callTool({ name: plan.tool, arguments: args }, { timeout: timeoutMs }) as Promise<ToolAnswer>,
  );
}
