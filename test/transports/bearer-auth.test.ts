import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnginePool } from '../../src/engine/runtime/pool.js';
import { type IssuerSettings, openBearerGate } from '../../src/transports/auth/bearer-gate.js';
import { HEALTH_PATH, type HttpService, serveHttp } from '../../src/transports/serve-http.js';
import { MODERN_CALL_HEADERS, MODERN_COUNT_CALL } from '../support/http-requests.js';
import {
  CLIENTS,
  type ClientId,
  type Issuer,
  newSigningKey,
  RESOURCE_SERVER,
  SCOPE,
  startIssuer,
} from '../support/oidc-issuer.js';
import { MODERN, NOT_HELD, text } from '../support/sdk-client.js';

/*
 * Bearer tokens on the HTTP transports against a real OpenID provider (docs/adr/0054): each
 * refused token gets the status and `WWW-Authenticate` the MCP authorization chapter names, and
 * a handle made by one subject is unknown to another, in both eras and over SSE.
 */

let issuer: Issuer;
let engine: EnginePool;
const services: HttpService[] = [];

beforeAll(async () => {
  issuer = await startIssuer();
  engine = new EnginePool({ size: 1 });
});
afterAll(async () => {
  for (const service of services) await service.close();
  await engine.close();
  await issuer.close();
});

/** A server whose resource URI is its own /mcp (or /sse) URL, as a deployment names its public one. */
async function serve(
  kind: 'streamable-http' | 'sse',
  scopes: string[] = [],
  introspection?: IssuerSettings['introspection'],
): Promise<{ url: string; resource: string }> {
  // The port is known only once it listens, and the resource names it: a first server finds a
  // free port, and the authenticated one takes it.
  const probe = await serveHttp(kind, engine, { host: '127.0.0.1', port: 0, onError: () => {} });
  const url = probe.url;
  await probe.close();
  const auth = await openBearerGate({
    issuer: issuer.url,
    resource: url,
    requiredScopes: scopes,
    // A rotation is seen at the next unknown key id, not 30 s later.
    refetchCooldownMs: 0,
    ...(introspection ? { introspection } : {}),
  });
  const service = await serveHttp(kind, engine, {
    host: '127.0.0.1',
    port: Number(new URL(url).port),
    onError: () => {},
    auth,
    limits: {
      maxSessions: 16,
      idleMs: 60_000,
      evictableAfterMs: 5_000,
      engagedEvictableAfterMs: 60_000,
      maxSessionsPerCaller: 2,
    },
  });
  services.push(service);
  return { url: service.url, resource: url };
}

/** A 2026-07-28 call with this Authorization header (or none): the status and headers it got. */
async function modernCall(url: string, authorization?: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...MODERN_CALL_HEADERS, ...(authorization === undefined ? {} : { authorization }) },
    body: MODERN_COUNT_CALL,
  });
  return {
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
    body: await response.text(),
  };
}

async function client(
  url: string,
  token: string,
  options?: ConstructorParameters<typeof Client>[1],
  sse = false,
) {
  const client = new Client({ name: 'bearer-auth-test', version: '1' }, options);
  const authorization = `Bearer ${token}`;
  const requestInit = { headers: { authorization } };
  // The SSE stream is opened by an EventSource, which takes headers only through its fetch.
  const withToken: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', authorization);
    return fetch(input, { ...init, headers });
  };
  await client.connect(
    sse
      ? new SSEClientTransport(new URL(url), { requestInit, eventSourceInit: { fetch: withToken } })
      : new StreamableHTTPClientTransport(new URL(url), { requestInit }),
  );
  return client;
}

describe('bearer tokens on Streamable HTTP', () => {
  let url: string;
  let resource: string;
  let metadataUrl: string;
  beforeAll(async () => {
    ({ url, resource } = await serve('streamable-http', [SCOPE]));
    metadataUrl = new URL('/.well-known/oauth-protected-resource/mcp', url).href;
  });

  const bearer = async (client: ClientId = 'alice') =>
    `Bearer ${await issuer.token(client, resource, SCOPE)}`;

  it('serves the protected resource metadata naming the issuer and the scopes', async () => {
    const response = await fetch(metadataUrl);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      resource,
      authorization_servers: [issuer.url],
      scopes_supported: [SCOPE],
    });
  });

  it('answers a valid token from the provider', async () => {
    const { status, body } = await modernCall(url, await bearer());
    expect(status).toBe(200);
    expect(body).toContain('"text":"2"');
  });

  it('leaves /healthz open, naming no caller', async () => {
    const response = await fetch(new URL(HEALTH_PATH, url));
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).not.toMatch(/alice|bob|subject/);
  });

  const refused = async (authorization: string | undefined, status: number, error: string) => {
    const answer = await modernCall(url, authorization);
    expect(answer.status).toBe(status);
    expect(answer.challenge).toMatch(/^Bearer /);
    expect(answer.challenge).toContain(`error="${error}"`);
    expect(answer.challenge).toContain(`resource_metadata="${metadataUrl}"`);
    expect(answer.body).not.toContain('"text":"2"');
    return answer;
  };

  it('refuses a request with no token: 401 with the metadata URL', async () => {
    await refused(undefined, 401, 'invalid_token');
  });

  it('refuses an expired token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.sign({
      iss: issuer.url,
      aud: resource,
      sub: 'alice',
      scope: SCOPE,
      iat: now - 600,
      exp: now - 300,
    });
    const { challenge } = await refused(`Bearer ${token}`, 401, 'invalid_token');
    expect(challenge).toContain('expired');
  });

  it('refuses a token issued for another resource (audience)', async () => {
    const token = await issuer.token('alice', 'https://elsewhere.example/mcp', SCOPE);
    const { challenge } = await refused(`Bearer ${token}`, 401, 'invalid_token');
    expect(challenge).toContain('audience');
  });

  it('refuses a token from another issuer, signed with a key this issuer publishes', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.sign({
      iss: 'https://evil.example',
      aud: resource,
      sub: 'alice',
      scope: SCOPE,
      iat: now,
      exp: now + 300,
    });
    const { challenge } = await refused(`Bearer ${token}`, 401, 'invalid_token');
    expect(challenge).toContain('another issuer');
  });

  it('refuses a token with a bad signature (a key of the same id the issuer does not hold)', async () => {
    const forger = await newSigningKey('key-1');
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.sign(
      { iss: issuer.url, aud: resource, sub: 'alice', scope: SCOPE, iat: now, exp: now + 300 },
      forger,
    );
    const { challenge } = await refused(`Bearer ${token}`, 401, 'invalid_token');
    expect(challenge).toContain('signature');
  });

  it('refuses an unsigned token (alg: none)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const token = `${part({ alg: 'none', typ: 'at+jwt' })}.${part({ iss: issuer.url, aud: resource, sub: 'alice', scope: SCOPE, exp: now + 300 })}.`;
    await refused(`Bearer ${token}`, 401, 'invalid_token');
  });

  it('refuses a token without the required scope: 403 insufficient_scope', async () => {
    const token = await issuer.token('alice', resource);
    const { challenge } = await refused(`Bearer ${token}`, 403, 'insufficient_scope');
    expect(challenge).toContain(`scope="${SCOPE}"`);
  });

  it('refuses what is not a bearer token', async () => {
    await refused('Basic YWxpY2U6YWxpY2Utc2VjcmV0', 401, 'invalid_token');
    await refused('Bearer not-a-jwt', 401, 'invalid_token');
  });

  it('follows a key rotation: a token signed with the new key is accepted, the retired key refused', async () => {
    // Something is verified first, so the old key set is cached.
    expect((await modernCall(url, await bearer())).status).toBe(200);
    const old = await issuer.token('alice', resource, SCOPE);
    const next = await newSigningKey('key-2');
    await issuer.rotate([next]);
    expect((await modernCall(url, await bearer())).status).toBe(200);
    const retired = await modernCall(url, `Bearer ${old}`);
    expect(retired.status).toBe(401);
  });

  it('answers 500 server_error, not the caller’s fault, while the issuer’s keys cannot be fetched', async () => {
    const unpublished = await newSigningKey('key-unpublished');
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: issuer.url, aud: resource, sub: 'alice', scope: SCOPE, iat: now, exp: now + 300 };
    // A key id the cached set lacks makes the server fetch the set again, from an issuer that is down.
    const token = await issuer.sign(claims, unpublished);
    issuer.fail();
    try {
      const answer = await modernCall(url, `Bearer ${token}`);
      expect(answer.status).toBe(500);
      expect(answer.body).toContain('server_error');
    } finally {
      await issuer.rotate([await newSigningKey('key-3')]);
    }
    expect((await modernCall(url, await bearer())).status).toBe(200);
  });

  it.each([
    ['2025-11-25 session', {}],
    ['2026-07-28 stateless', MODERN],
  ])('over a %s, a handle answers its own subject only, as unknown to another', async (_era, options) => {
    const alice = await client(url, await issuer.token('alice', resource, SCOPE), options);
    const bob = await client(url, await issuer.token('bob', resource, SCOPE), options);
    const xml = '<r><a/><a/><a/></r>';
    const sent = await alice.callTool({ name: 'xml_inspect', arguments: { xml } });
    const document = (sent.structuredContent as { document: string }).document;
    expect(document).toMatch(/^d_/);
    const stolen = await bob.callTool({ name: 'xml_query', arguments: { document, xpath: 'count(//a)' } });
    expect(stolen.isError).toBe(true);
    expect(text(stolen)).toBe(NOT_HELD);
    expect(
      text(await alice.callTool({ name: 'xml_query', arguments: { document, xpath: 'count(//a)' } })),
    ).toBe('3');
    // The same text sent by the other subject gets a handle of its own.
    const bobs = await bob.callTool({ name: 'xml_inspect', arguments: { xml } });
    expect((bobs.structuredContent as { document: string }).document).not.toBe(document);
    await alice.close();
    await bob.close();
  });

  it('refuses one subject the session another opened, as unknown', async () => {
    const alice = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: await bearer('alice') } },
    });
    const aliceClient = new Client({ name: 't', version: '1' });
    await aliceClient.connect(alice);
    const sessionId = alice.sessionId as string;
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
        authorization: await bearer('bob'),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
    await response.text();
    expect((await aliceClient.listTools()).tools.length).toBe(5);
    await aliceClient.close();
  });

  it('keeps a bound on sessions per subject: a third evicts that subject’s own idle one', async () => {
    const token = await issuer.token('bob', resource, SCOPE);
    const opened: Client[] = [];
    for (let i = 0; i < 3; i++) opened.push(await client(url, token));
    // Bob's first session was evicted for his third: it is gone, the other two answer.
    await expect(opened[0]?.listTools()).rejects.toThrow();
    expect((await opened[2]?.listTools())?.tools.length).toBe(5);
    // Alice's sessions were not touched.
    const alice = await client(url, await issuer.token('alice', resource, SCOPE));
    expect((await alice.listTools()).tools.length).toBe(5);
    for (const each of [...opened, alice]) await each.close().catch(() => {});
  });
});

describe('bearer tokens on the legacy SSE transport', () => {
  it('refuses the stream without a token, and keeps a handle to its subject', async () => {
    const { url, resource } = await serve('sse');
    const response = await fetch(url, { headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('resource_metadata=');
    await response.text();
    const alice = await client(url, await issuer.token('alice', resource), undefined, true);
    const bob = await client(url, await issuer.token('bob', resource), undefined, true);
    const sent = await alice.callTool({ name: 'xml_inspect', arguments: { xml: '<r><a/></r>' } });
    const document = (sent.structuredContent as { document: string }).document;
    const stolen = await bob.callTool({ name: 'xml_query', arguments: { document, xpath: 'count(//a)' } });
    expect(text(stolen)).toBe(NOT_HELD);
    expect(
      text(await alice.callTool({ name: 'xml_query', arguments: { document, xpath: 'count(//a)' } })),
    ).toBe('1');
    await alice.close();
    await bob.close();
  });
});

describe('a legacy SSE session of one subject', () => {
  it('takes no message from another subject: 404, as for an unknown session', async () => {
    const { url, resource } = await serve('sse');
    const alice = `Bearer ${await issuer.token('alice', resource)}`;
    const stream = new AbortController();
    const opened = await fetch(url, {
      headers: { accept: 'text/event-stream', authorization: alice },
      signal: stream.signal,
    });
    expect(opened.status).toBe(200);
    // The first event names the session's endpoint.
    const reader = (opened.body as ReadableStream<Uint8Array>).getReader();
    let events = '';
    while (!/data: (\S+)/.test(events)) events += new TextDecoder().decode((await reader.read()).value);
    const endpoint = new URL(/data: (\S+)/.exec(events)?.[1] as string, url);
    const post = async (authorization: string) => {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      await response.text();
      return response.status;
    };
    expect(await post(`Bearer ${await issuer.token('bob', resource)}`)).toBe(404);
    expect(await post(alice)).toBe(202);
    stream.abort();
  });
});

describe('opaque tokens, introspected at the issuer (RFC 7662)', () => {
  it('answers an active token for this resource, refuses an unknown or foreign one, and keeps handles apart', async () => {
    const { url, resource } = await serve('streamable-http', [], {
      clientId: RESOURCE_SERVER,
      clientSecret: CLIENTS[RESOURCE_SERVER],
    });
    issuer.opaqueFor(resource);
    issuer.opaqueFor('https://elsewhere.example/opaque');
    const aliceToken = await issuer.token('alice', resource);
    expect(aliceToken.split('.').length).not.toBe(3);
    expect((await modernCall(url, `Bearer ${aliceToken}`)).status).toBe(200);
    const unknown = await modernCall(url, 'Bearer made-up-opaque-token');
    expect(unknown.status).toBe(401);
    expect(unknown.challenge).toContain('not active');
    const foreign = await modernCall(
      url,
      `Bearer ${await issuer.token('alice', 'https://elsewhere.example/opaque')}`,
    );
    expect(foreign.status).toBe(401);
    expect(foreign.challenge).toContain('audience');
    // JWTs are still checked locally beside them.
    issuer.jwtFor(resource);
    const jwt = await issuer.token('alice', resource);
    expect(jwt.split('.').length).toBe(3);
    expect((await modernCall(url, `Bearer ${jwt}`)).status).toBe(200);
    issuer.opaqueFor(resource);
    const alice = await client(url, aliceToken, MODERN);
    const bob = await client(url, await issuer.token('bob', resource), MODERN);
    const sent = await alice.callTool({ name: 'xml_inspect', arguments: { xml: '<r><a/></r>' } });
    const document = (sent.structuredContent as { document: string }).document;
    expect(
      text(await bob.callTool({ name: 'xml_query', arguments: { document, xpath: 'count(//a)' } })),
    ).toBe(NOT_HELD);
    // The same subject with its JWT finds it: one caller, whichever form its token takes.
    const aliceByJwt = await client(url, jwt, MODERN);
    expect(
      text(await aliceByJwt.callTool({ name: 'xml_query', arguments: { document, xpath: 'count(//a)' } })),
    ).toBe('1');
    for (const each of [alice, bob, aliceByJwt]) await each.close();
  });
});

describe('static bearer tokens from a file', () => {
  const tokens = { ci: 'ci-token-0123456789abcdef0123456789', ops: 'ops-token-0123456789abcdef012345678' };
  const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');
  let home: string;
  let url: string;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'oxml-tokens-'));
    const file = join(home, 'tokens');
    writeFileSync(
      file,
      `# name and SHA-256 of each token\nci ${sha256(tokens.ci)}\n\nops ${sha256(tokens.ops)}\n`,
    );
    expect(readFileSync(file, 'utf8')).not.toContain(tokens.ci);
    const service = await serveHttp('streamable-http', engine, {
      host: '127.0.0.1',
      port: 0,
      onError: () => {},
      auth: await openBearerGate({ tokensFile: file }),
    });
    services.push(service);
    url = service.url;
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('answers a listed token, refuses any other with 401, and keeps a handle to its name', async () => {
    expect((await modernCall(url, `Bearer ${tokens.ci}`)).status).toBe(200);
    for (const wrong of [undefined, `Bearer ${tokens.ci}x`, `Bearer ${sha256(tokens.ci)}`]) {
      const refused = await modernCall(url, wrong);
      expect(refused.status).toBe(401);
      expect(refused.challenge).toContain('error="invalid_token"');
    }
    const ci = await client(url, tokens.ci, MODERN);
    const ops = await client(url, tokens.ops, MODERN);
    const sent = await ci.callTool({ name: 'xml_inspect', arguments: { xml: '<r><a/></r>' } });
    const document = (sent.structuredContent as { document: string }).document;
    expect(
      text(await ops.callTool({ name: 'xml_query', arguments: { document, xpath: 'count(//a)' } })),
    ).toBe(NOT_HELD);
    expect(text(await ci.callTool({ name: 'xml_query', arguments: { document, xpath: 'count(//a)' } }))).toBe(
      '1',
    );
    await ci.close();
    await ops.close();
  });

  it.each([
    ['a line without a digest', 'ci\n', /line 1: write NAME and the token's SHA-256/],
    ['a digest that is not hex SHA-256', `ci ${'z'.repeat(64)}\n`, /line 1/],
    ['a name given twice', `ci ${sha256('a')}\nci ${sha256('b')}\n`, /line 2: the name "ci" is given twice/],
    ['nothing but comments', '# none\n', /no tokens in it/],
  ])('refuses a file with %s, saying where', async (_case, content, message) => {
    const file = join(home, 'bad');
    writeFileSync(file, content);
    await expect(openBearerGate({ tokensFile: file })).rejects.toThrow(message);
  });
});
