import { INITIALIZE_2025, POST_HEADERS } from './http-requests.js';

/*
 * A 2025-11-25 client over Streamable HTTP in plain fetch calls, as the session tests and the
 * load and memory scripts drive one: no SDK, so what is on the wire is only what they send.
 */

export const sessionHeaders = (id: string) => ({
  ...POST_HEADERS,
  'mcp-session-id': id,
  'mcp-protocol-version': '2025-11-25',
});

/** A tool's answer as a model reads it, or the HTTP status when there was none. */
export interface ToolReply {
  status: number;
  text?: string;
  document?: string;
  isError?: boolean;
}

/** POSTs a JSON-RPC message in the session; a 200 is read as the one event of an SSE reply. */
export async function postInSession(url: string, body: unknown, id: string): Promise<ToolReply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: sessionHeaders(id),
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) return { status: response.status };
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  const result = (JSON.parse(data?.slice('data: '.length) ?? '{}') as { result?: unknown }).result as
    | { content?: Array<{ text: string }>; structuredContent?: { document?: string }; isError?: boolean }
    | undefined;
  return {
    status: 200,
    text: result?.content?.[0]?.text ?? '',
    ...(result?.structuredContent?.document ? { document: result.structuredContent.document } : {}),
    ...(result?.isError ? { isError: true } : {}),
  };
}

/** initialize and notifications/initialized: the session id, or the status that refused it. */
export async function openSession(url: string): Promise<{ id: string } | { status: number }> {
  const init = await fetch(url, { method: 'POST', headers: POST_HEADERS, body: INITIALIZE_2025 });
  await init.text();
  const id = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !id) return { status: init.status };
  const initialized = await fetch(url, {
    method: 'POST',
    headers: sessionHeaders(id),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.text();
  return initialized.status === 202 ? { id } : { status: initialized.status };
}

/** An `xml_query` call's message. */
export const queryCall = (args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'xml_query', arguments: args },
});
