import { randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  type JSONRPCRequest,
  type Result,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type ByteTexts, decodedText } from './byte-texts.js';
import type { EnginePool } from './engine/runtime/pool.js';
import { callerLine } from './engine/runtime/waiting-ledger.js';
import { clarifyInvalidParams } from './invalid-params.js';
import { resolveDocuments } from './tools/document-handles.js';
import type { DocumentStore } from './tools/document-store.js';
import { pathInsteadOfText } from './tools/document-text-guard.js';
import { HANDLE_LIFETIME } from './tools/handle-lifetime.js';
import { heldDocuments } from './tools/held-documents.js';
import { tools } from './tools/index.js';
import { inputKeys, listing, parseArguments, type ToolArguments, toolError } from './tools/tool.js';
import { VERSION } from './version.js';

const INSTRUCTIONS =
  'Answers questions about XML documents exactly, so you never count or search XML by eye. ' +
  'Pass the document text (never a path or URL) in the `xml` argument once: answers end with its handle ' +
  '(`document: d_…`), which later calls take as `document` instead. ' +
  `${HANDLE_LIFETIME} ` +
  'On an unfamiliar document call xml_inspect first: it gives the element names and the namespaces ' +
  'xml_query needs. Then use xml_query for counts, values and filters in XPath 1.0, or XPath 3.1 for what ' +
  '1.0 cannot say (sum over computed values, distinct-values, sort or `order by`, dates, regex, for/let, ' +
  'group by as distinct-values + count; XQuery FLWOR with where/order by too; format-number(x, ' +
  "'#,##0.00') for fixed decimals): the server does the arithmetic. An unprefixed name matches only " +
  'elements in no namespace. Ask several ' +
  'questions in one call with an array of expressions; `output: "xml"` shows matched records whole, ' +
  '`"paths"` where they are. xml_check for ' +
  'well-formedness; xml_validate for XSD, RELAX NG, a DTD or Schematron rules; xml_format to pretty-print.';

const byName = new Map(tools.map((tool) => [tool.name, tool]));
const toolList = tools.map(listing);
const toolNames = tools.map((tool) => tool.name).join(', ');

/** An unknown tool's name as the answer repeats it: a 100,000-character name is not echoed whole. */
function shownName(name: string): string {
  return name.length <= 64 ? name : `${name.slice(0, 40)}…`.toWellFormed();
}
const toolInputs = new Map(tools.map((tool) => [tool.name, inputKeys(tool)]));

/**
 * Builds the MCP server every transport serves. The tool handlers are registered on the
 * low-level `Server` rather than through `McpServer.registerTool`, because docs/behaviour.md §2 wants an
 * unknown tool and a bad argument to be `isError` results a model can read (McpServer answers
 * the first with JSON-RPC -32602) with messages that name the field (see docs/adr/0002).
 */
export interface ServerOptions {
  /**
   * This instance is a session (a stdio connection, a 2025 HTTP session, an SSE connection): it
   * keeps its parsed documents for its next calls, and the texts it sends are charged to it and
   * freed when it ends. Never for 2026-07-28 requests over HTTP: they are stateless, each request
   * its own instance, and their texts are held in the store's stateless scope until they expire.
   */
  cacheDocuments?: boolean;
  /**
   * A stateless instance holds the texts it is sent, in the store's stateless scope, for any
   * later request to present by handle (the HTTP transport's, docs/adr/0039). Without it, and
   * without `cacheDocuments`, nothing is held: a bare `createServer(engine)` is the tools alone.
   */
  holdTexts?: boolean;
  /** Where texts are held for their handles; the process's own store by default. */
  documents?: DocumentStore;
  /**
   * Asked when a session closes: true when the server ended it (evicted, reaped, shut down) and
   * not its client, so its texts stay for their handles until they expire (ADR 0047). Without it
   * a session's end frees its texts at once (stdio, whose end is its client's).
   */
  textsOutliveSession?: () => boolean;
  /** The transport writes a text answer from its bytes (stdio, docs/adr/0029); without it, texts are decoded. */
  byteTexts?: ByteTexts;
  /**
   * The authenticated caller's subject (HTTP with authentication on, docs/adr/0054): its handles
   * answer it alone, and its calls wait in one line with every other call of the same subject.
   */
  owner?: string | undefined;
}

/** The SDK's server, with malformed params answered as -32602 and a sentence (invalid-params.ts). */
class OxmlServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    return async (request, ctx) => {
      try {
        return await wrapped(request, ctx);
      } catch (error) {
        throw clarifyInvalidParams(method, error);
      }
    };
  }
}

/**
 * The document cache every stateless request shares on the workers: never forgotten, bounded by
 * the workers' cache like any other (a client id is a UUID, so none can be this).
 */
export const STATELESS_CACHE = 'stateless';

export function createServer(engine: EnginePool, options: ServerOptions = {}): Server {
  // One instance serves one session, connection or stateless request: its calls share a turn.
  const client = randomUUID();
  // A session's parses are its own; stateless requests share one cache, as they share their
  // held texts, so a text sent once and presented by handle is parsed once (docs/adr/0045).
  const cacheAs = options.cacheDocuments ? client : options.holdTexts ? STATELESS_CACHE : undefined;
  // A session's texts are charged to it; a stateless request's outlive it (docs/adr/0039).
  const store = options.documents ?? heldDocuments;
  const { owner } = options;
  const held = options.cacheDocuments
    ? store.open(owner)
    : options.holdTexts
      ? owner === undefined
        ? store.stateless
        : store.statelessFor(owner)
      : undefined;
  // The engine's fair line is per caller when there is one: a subject opening many sessions, or
  // sending many stateless requests, gets one turn among the others, not one per session.
  const line = owner === undefined ? client : callerLine(owner);
  const server = new OxmlServer(
    { name: 'oxml-mcp', title: 'oxml-mcp: XML query tools', version: VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler('tools/list', () => ({ tools: toolList }));

  server.setRequestHandler('tools/call', async (request, ctx): Promise<CallToolResult> => {
    const { name, arguments: rawArguments } = request.params;
    const tool = byName.get(name);
    if (!tool) return toolError(`Unknown tool \`${shownName(name)}\`. The tools are: ${toolNames}.`);
    const parsed = parseArguments(tool, rawArguments);
    if (!parsed.ok) return toolError(parsed.message);
    const misplaced = pathInsteadOfText(parsed.args as Record<string, unknown>);
    if (misplaced) return toolError(misplaced);
    let documents = resolveDocuments(name, toolInputs.get(name) ?? new Set(), parsed.args, held, engine);
    // A promise only when a text is fetched from a shared store: a local call pays no extra turn.
    if (documents instanceof Promise) documents = await documents;
    if (!documents.ok) return toolError(documents.message);
    const progress = progressReporter(request.params._meta?.progressToken, ctx.mcpReq.notify);
    // Awaited only when asked for: two awaits of a no-op are two turns of the microtask queue.
    if (progress) await progress(0, 'started');
    const { byteTexts } = options;
    const result = await tool.run(documents.args as ToolArguments<unknown>, {
      engine: documents.engine,
      call: { signal: ctx.mcpReq.signal, client: line },
      cacheAs,
      textOf: byteTexts ? (bytes) => byteTexts.hold(ctx.mcpReq.id, bytes) : decodedText,
    });
    if (progress) await progress(1, 'done');
    // The shared store's copy was written while the engine ran: another process can read it
    // once this answer names its handle (docs/adr/0041).
    if (documents.stored) await documents.stored;
    return server.projectCallToolResult(
      documents.answer(result),
      toolList.find((entry) => entry.name === name)?.outputSchema,
    ) as CallToolResult;
  });

  if (options.cacheDocuments) {
    server.onclose = () => {
      if (options.textsOutliveSession?.()) held?.leave();
      else held?.close();
      engine.forget(client);
    };
  }
  return server;
}

type Notify = (notification: {
  method: 'notifications/progress';
  params: Record<string, unknown>;
}) => Promise<void>;

/**
 * A call that carries a `progressToken` hears when its work starts and ends (docs/behaviour.md §3). The
 * engine call is one indivisible step on a worker, so there is no finer progress to report.
 */
function progressReporter(
  token: unknown,
  notify: Notify,
): ((progress: number, message: string) => Promise<void>) | undefined {
  if (typeof token !== 'string' && typeof token !== 'number') return undefined;
  return (progress, message) =>
    notify({
      method: 'notifications/progress',
      params: { progressToken: token, progress, total: 1, message },
    }).catch(() => {});
}
