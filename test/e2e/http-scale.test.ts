import { once } from 'node:events';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  healthUntil,
  MODERN_CALL_HEADERS,
  MODERN_COUNT_CALL,
  postInTwoParts,
} from '../support/http-requests.js';
import { type RunningServer, startServer } from '../support/http-server.js';
import { type Router, startRouter } from './router.js';

/** A stateless answer to a text ends with the text's handle too (ADR 0039). */
const HANDLE_LINE = { text: expect.stringMatching(/^document: d_[A-Za-z0-9_-]{22} /) };

type Options = ConstructorParameters<typeof Client>[1];
const MODERN: Options = { versionNegotiation: { mode: { pin: '2026-07-28' } } };
const portOf = (server: RunningServer) => Number(new URL(server.url).port);

let servers: RunningServer[] = [];
let router: Router | undefined;
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  await router?.close();
  router = undefined;
  for (const server of servers)
    if (server.child.exitCode === null && server.child.signalCode === null) await server.stop();
  servers = [];
});

/** Two processes named a and b, and the router of deploy/nginx.conf's shape in front. */
async function twoBehindRouter(roundRobinOnly = false, extraArgs: string[] = []): Promise<Router> {
  servers = await Promise.all(
    ['a', 'b'].map((name) => startServer('streamable-http', ['--instance', name, ...extraArgs])),
  );
  router = await startRouter(
    servers.map((server, i) => ({ name: i === 0 ? 'a' : 'b', port: portOf(server) })),
    roundRobinOnly,
  );
  return router;
}

async function connect(url: string, options: Options = {}): Promise<{ client: Client; session?: string }> {
  const client = new Client({ name: 'e2e-scale', version: '1' }, options);
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  clients.push(client);
  return { client, ...(transport.sessionId === undefined ? {} : { session: transport.sessionId }) };
}

async function count(client: Client, n: number): Promise<string | undefined> {
  const result = await client.callTool({
    name: 'xml_query',
    arguments: { xml: `<r>${'<a/>'.repeat(n)}</r>`, xpath: 'count(//a)' },
  });
  return (result.content as Array<{ text: string }>)[0]?.text;
}

const ownerOf = (session: string | undefined) => servers[session?.startsWith('a.') ? 0 : 1] as RunningServer;
const otherThan = (server: RunningServer) => servers.find((s) => s !== server) as RunningServer;

describe('two processes behind a balancer that routes by Mcp-Session-Id', () => {
  it('a plain round-robin balancer loses a 2025-11-25 session at its first request after initialize', async () => {
    const { url } = await twoBehindRouter(true);
    await expect(connect(url)).rejects.toMatchObject({ status: 404 });
  });

  it('sends every request of a 2025-11-25 session to the process its id names, and 2026-07-28 requests to both', async () => {
    const { url, answeredBy } = await twoBehindRouter();
    const { client, session } = await connect(url);
    expect(session).toMatch(/^[ab]\.[0-9a-f-]{36}$/);
    const seen = answeredBy.length;
    for (let n = 1; n <= 6; n++) expect(await count(client, n)).toBe(String(n));
    expect(new Set(answeredBy.slice(seen))).toEqual(new Set([portOf(ownerOf(session))]));

    const modern = await connect(url, MODERN);
    expect(modern.session).toBeUndefined();
    const before = answeredBy.length;
    for (let n = 1; n <= 6; n++) expect(await count(modern.client, n)).toBe(String(n));
    expect(new Set(answeredBy.slice(before))).toEqual(new Set(servers.map(portOf)));
  });

  it.each([
    ['SIGTERM (drained, exit 0)', 'SIGTERM'],
    ['SIGKILL', 'SIGKILL'],
  ] as const)(
    'a session whose process stopped by %s is answered 404 through the balancer; a new session works and stateless clients lose nothing',
    async (_how, signal) => {
      const { url } = await twoBehindRouter();
      const { client, session } = await connect(url);
      const modern = await connect(url, MODERN);
      const owner = ownerOf(session);
      if (signal === 'SIGTERM') expect(await owner.stop()).toBe(0);
      else {
        owner.child.kill('SIGKILL');
        await once(owner.child, 'exit');
      }

      await expect(count(client, 3)).rejects.toMatchObject({ status: 404 });
      const again = await connect(url);
      expect(again.session?.startsWith(`${otherThan(owner) === servers[0] ? 'a' : 'b'}.`)).toBe(true);
      expect(await count(again.client, 3)).toBe('3');
      // Round-robin reaches the stopped process every other request; each is stepped over.
      for (let n = 1; n <= 6; n++) expect(await count(modern.client, n)).toBe(String(n));
    },
  );
});

describe('the built binary on SIGTERM', () => {
  it('answers the call in flight, refuses a new request with 503, and exits 0', async () => {
    const server = await startServer('streamable-http', ['--drain-ms', '600000']);
    servers = [server];
    const call = postInTwoParts(server.url, MODERN_COUNT_CALL);
    await healthUntil(server.url, (_status, body) => body.calls === 1);
    server.child.kill('SIGTERM');
    await healthUntil(server.url, (status) => status === 503);

    const refused = await fetch(server.url, {
      method: 'POST',
      headers: MODERN_CALL_HEADERS,
      body: MODERN_COUNT_CALL,
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    await refused.text();

    call.finish();
    const answered = await call.response;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.text)).toMatchObject({
      id: 7,
      result: { content: [{ text: '2' }, HANDLE_LINE] },
    });
    const [code] = (await once(server.child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(server.stderr()).toMatch(/draining[\s\S]*drained/);
  });
});
