import { request } from 'node:http';

/** What every Streamable HTTP POST sends. */
export const POST_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/** A 2025-11-25 `initialize`, opening a session. */
export const INITIALIZE_2025 = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

/** The headers of a 2026-07-28 `tools/call` of `xml_query`. */
export const MODERN_CALL_HEADERS = {
  ...POST_HEADERS,
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'xml_query',
};

/** A 2026-07-28 `tools/call` (id 7) answered `2`. */
export const MODERN_COUNT_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
    },
    name: 'xml_query',
    arguments: { xml: '<r><a/><a/></r>', xpath: 'count(//a)' },
  },
});

/**
 * A POST whose body is sent in two parts: the request is in flight on the server, waiting for
 * the rest of its body, until `finish()`. A call held in flight with no clock involved.
 */
export function postInTwoParts(
  url: string,
  body: string,
  headers: Record<string, string> = MODERN_CALL_HEADERS,
) {
  const bytes = Buffer.from(body);
  const half = Math.floor(bytes.length / 2);
  let req: ReturnType<typeof request> | undefined;
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req = request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(bytes.length) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
        });
        res.once('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.once('error', reject);
      },
    );
    req.once('error', reject);
    req.write(bytes.subarray(0, half));
  });
  return { response, finish: () => req?.end(bytes.subarray(half)) };
}

/** Polls `GET /healthz` of the server at `url` until `done` holds (the test's time-out bounds it). */
export async function healthUntil(
  url: string,
  done: (status: number, body: Record<string, unknown>) => boolean,
): Promise<void> {
  const health = new URL('/healthz', url).href;
  for (;;) {
    const response = await fetch(health);
    if (done(response.status, (await response.json()) as Record<string, unknown>)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
