import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/built-cli.js';
import { type RunningServer, startServer } from '../support/http-server.js';
import { CLIENTS, type ClientId, type Issuer, SCOPE, startIssuer } from '../support/oidc-issuer.js';
import { exerciseEveryTool, MODERN, NOT_HELD, text } from '../support/sdk-client.js';
import { service } from '../support/services.js';

/*
 * The built binary with --auth-issuer against a real OpenID provider (docs/adr/0054): the SDK
 * client finds the issuer through the 401 and the Protected Resource Metadata, gets a token with
 * its client credentials, and calls every tool; behind nginx, two processes and one store, a
 * handle still answers only the subject that made it.
 */

/** Children that read the issuer, which runs in this process: never spawnSync, which would block it. */
const run = promisify(execFile);

let issuer: Issuer;
beforeAll(async () => {
  issuer = await startIssuer();
});
afterAll(async () => {
  await issuer.close();
});

/** A port free a moment ago: the resource URI names it, so it is chosen before the server starts. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function oauthClient(url: string, client: ClientId, options?: ConstructorParameters<typeof Client>[1]) {
  const provider = new ClientCredentialsProvider({
    clientId: client,
    clientSecret: CLIENTS[client],
    scope: SCOPE,
    expectedIssuer: issuer.url,
  });
  const mcp = new Client({ name: 'e2e-auth', version: '1' }, options);
  return { mcp, transport: new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }) };
}

describe('the built binary with --auth-issuer', () => {
  let server: RunningServer;
  let url: string;
  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    server = await startServer('streamable-http', [
      '--port',
      String(port),
      '--auth-issuer',
      issuer.url,
      '--auth-resource',
      url,
      '--auth-scope',
      SCOPE,
    ]);
    expect(server.url).toBe(url);
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
  });

  it.each([
    ['2025-11-25 session', {}],
    ['2026-07-28 stateless', MODERN],
  ])(
    'lets the SDK client through its OAuth support (client credentials) call every tool, %s',
    async (_era, options) => {
      const { mcp, transport } = oauthClient(url, 'alice', options);
      await mcp.connect(transport);
      await exerciseEveryTool(mcp);
      await mcp.close();
    },
  );

  it('answers no token 401 with the metadata URL, and /healthz without one', async () => {
    const refused = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(
      `resource_metadata="${new URL('/.well-known/oauth-protected-resource/mcp', url).href}"`,
    );
    await refused.text();
    expect((await fetch(new URL('/healthz', url))).status).toBe(200);
  });
});

describe('the authentication flags', () => {
  it.each([
    [
      ['--transport', 'streamable-http', '--auth-issuer', 'https://id.example'],
      /--auth-issuer needs --auth-resource/,
    ],
    [['--transport', 'streamable-http', '--auth-resource', 'https://x.example/mcp'], /need --auth-issuer/],
    [
      ['--auth-issuer', 'https://id.example', '--auth-resource', 'https://x.example/mcp'],
      /has no effect with stdio/,
    ],
    [['--transport', 'sse', '--max-sessions-per-caller', '3'], /needs --auth-issuer or --auth-tokens/],
    [
      [
        '--transport',
        'sse',
        '--auth-issuer',
        'https://id.example',
        '--auth-resource',
        'https://x.example/sse',
        '--auth-introspection-client',
        'oxml',
      ],
      /--auth-introspection-client needs the client secret in the environment variable OXML_AUTH_CLIENT_SECRET/,
    ],
    [
      ['--transport', 'sse', '--auth-tokens', '/dev/null', '--auth-issuer', 'https://id.example'],
      /--auth-tokens is instead of --auth-issuer/,
    ],
    [
      [
        '--transport',
        'streamable-http',
        '--auth-issuer',
        'https://id.example',
        '--auth-resource',
        'https://x.example/mcp',
        '--auth-scope',
        'a b',
      ],
      /--auth-scope takes one scope/,
    ],
  ])('refuses %j with exit 2 and a reason', (args, reason) => {
    const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(reason);
    expect(run.stdout).toBe('');
  });

  it('does not start with a tokens file it cannot use, saying why', async () => {
    const args = ['--transport', 'sse', '--port', '0', '--auth-tokens', '/nonexistent/tokens'];
    const failed = await run(process.execPath, [CLI, ...args]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toMatch(/--auth-tokens \/nonexistent\/tokens: cannot read it \(ENOENT\)/);
  });

  it('does not start when the issuer publishes no metadata, saying why', async () => {
    const args = ['--transport', 'streamable-http', '--port', '0', '--auth-resource', 'http://127.0.0.1/mcp'];
    const failed = await run(process.execPath, [
      CLI,
      ...args,
      '--auth-issuer',
      `${issuer.url}/nothing-here`,
    ]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toMatch(/--auth-issuer .*nothing-here: no authorization server metadata/);
  });
});

const nginx = service('nginx');
const redisServer = service('redis-server');
const SCALE_SH = fileURLToPath(new URL('../../scripts/scale.sh', import.meta.url));
/** The resource behind the balancer: a name of the deployment's, not an address the test reaches. */
const RESOURCE = 'https://xml.example.test/mcp';

describe.skipIf(!nginx.path || !redisServer.path)(
  `two processes with --auth-issuer and --store behind nginx${nginx.skipped}${redisServer.skipped}`,
  () => {
    let home: string | undefined;
    let env: NodeJS.ProcessEnv | undefined;
    let url = '';
    let ports: number[] = [];
    beforeAll(async () => {
      home = mkdtempSync(join(tmpdir(), 'oxml-auth-stack-'));
      env = {
        ...process.env,
        OXML_SCALE_DIR: join(home, 'stack'),
        OXML_SCALE_STORE: '1',
        OXML_SCALE_FLAGS: `--auth-issuer ${issuer.url} --auth-resource ${RESOURCE}`,
        NGINX: nginx.path,
        REDIS_SERVER: redisServer.path,
      };
      const up = await run('bash', [SCALE_SH, 'up', '2'], { env, timeout: 110_000 });
      url = /^url: (\S+)$/m.exec(up.stdout)?.[1] ?? '';
      ports = readFileSync(join(env.OXML_SCALE_DIR as string, 'servers'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => Number(line.split(' ')[1]));
    });
    afterAll(() => {
      if (env) spawnSync('bash', [SCALE_SH, 'down'], { env, stdio: 'ignore', timeout: 120_000 });
      if (home) rmSync(home, { recursive: true, force: true });
    });

    async function connected(at: string, client: ClientId): Promise<Client> {
      const mcp = new Client({ name: 'e2e-auth-stack', version: '1' }, MODERN);
      const token = await issuer.token(client, RESOURCE, SCOPE);
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(at), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      return mcp;
    }

    it('serves the metadata through nginx, and a handle never crosses subjects on either process', async () => {
      const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url));
      expect(await metadata.json()).toMatchObject({
        resource: RESOURCE,
        authorization_servers: [issuer.url],
      });

      const alice = await connected(url, 'alice');
      const made = await alice.callTool({
        name: 'xml_query',
        arguments: { xml: '<r><a/><a/><a/></r>', xpath: 'count(//a)' },
      });
      const document = (made.structuredContent as { document: string }).document;
      expect(document).toMatch(/^d_/);
      const clients = [alice];
      for (const port of ports) {
        const direct = `http://127.0.0.1:${port}/mcp`;
        const aliceHere = await connected(direct, 'alice');
        const bobHere = await connected(direct, 'bob');
        clients.push(aliceHere, bobHere);
        // Each process answers Alice, one from the store, and neither answers Bob.
        expect(
          text(await aliceHere.callTool({ name: 'xml_query', arguments: { document, xpath: 'count(//a)' } })),
        ).toBe('3');
        const stolen = await bobHere.callTool({
          name: 'xml_query',
          arguments: { document, xpath: 'count(//a)' },
        });
        expect(text(stolen)).toBe(NOT_HELD);
      }
      await Promise.all(clients.map((client) => client.close().catch(() => {})));
    });
  },
);
