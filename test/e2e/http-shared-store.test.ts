import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { service } from '../support/services.js';

/*
 * The built binary, twice, behind real nginx in round-robin with one real redis-server: the
 * stack of docs/deploy.md, started by scripts/scale.sh with OXML_SCALE_STORE=1 (docs/adr/0041).
 */

const nginx = service('nginx');
const redisServer = service('redis-server');
const SCALE_SH = fileURLToPath(new URL('../../scripts/scale.sh', import.meta.url));
const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;

interface Stack {
  url: string;
  env: NodeJS.ProcessEnv;
  servers: Array<{ pid: number; port: number }>;
}

let stack: Stack | undefined;
let home: string | undefined;
const clients: Client[] = [];

function up(): Stack {
  home = mkdtempSync(join(tmpdir(), 'oxml-shared-store-'));
  const env = {
    ...process.env,
    OXML_SCALE_DIR: join(home, 'stack'),
    OXML_SCALE_STORE: '1',
    NGINX: nginx.path,
    REDIS_SERVER: redisServer.path,
  };
  const run = spawnSync('bash', [SCALE_SH, 'up', '2'], { env, encoding: 'utf8', timeout: 110_000 });
  if (run.status !== 0) throw new Error(`scale.sh up 2 failed (${run.status}): ${run.stderr}`);
  const url = /^url: (\S+)$/m.exec(run.stdout)?.[1];
  if (!url || !/^store: redis:\/\/127\.0\.0\.1:\d+$/m.test(run.stdout))
    throw new Error(`scale.sh up printed: ${run.stdout}`);
  const servers = readFileSync(join(env.OXML_SCALE_DIR, 'servers'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const [pid, port] = line.split(' ').map(Number) as [number, number];
      return { pid, port };
    });
  return { url, env, servers };
}

async function storeOf(port: number): Promise<{ state: string; held: number; fetched: number }> {
  const response = await fetch(`http://127.0.0.1:${port}/healthz`);
  return ((await response.json()) as { store: { state: string; held: number; fetched: number } }).store;
}

async function query(client: Client, args: Record<string, unknown>) {
  const result = await client.callTool({ name: 'xml_query', arguments: { xpath: 'count(//a)', ...args } });
  return {
    text: (result.content as Array<{ text: string }>)[0]?.text,
    document: (result.structuredContent as { document?: string } | undefined)?.document,
  };
}

describe.skipIf(!nginx.path || !redisServer.path)(
  `two processes with --store behind nginx${nginx.skipped}${redisServer.skipped}`,
  () => {
    beforeAll(() => {
      stack = up();
    });
    afterAll(async () => {
      await Promise.all(clients.map((client) => client.close().catch(() => {})));
      if (stack) spawnSync('bash', [SCALE_SH, 'down'], { env: stack.env, stdio: 'ignore', timeout: 120_000 });
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it('answers a stateless 2026-07-28 handle made on process A through nginx on process B, after A was killed', async () => {
      const { url, servers } = stack as Stack;
      const client = new Client({ name: 'e2e-shared-store', version: '1' }, MODERN);
      clients.push(client);
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');

      const made = await query(client, { xml: '<r><a/><a/><a/></r>' });
      expect(made.text).toBe('3');
      expect(made.document).toMatch(/^d_[A-Za-z0-9_-]{22}$/);
      const stores = await Promise.all(servers.map((server) => storeOf(server.port)));
      expect(stores.every((store) => store.state === 'ready')).toBe(true);
      const maker = servers[stores.findIndex((store) => store.held === 1)];
      const other = servers.find((server) => server !== maker);
      if (!maker || !other) throw new Error(`no single process holds the text: ${JSON.stringify(stores)}`);

      // A is gone without a word: only the store still has the text, and nginx steps over A.
      process.kill(maker.pid, 'SIGKILL');
      for (let call = 0; call < 3; call++) {
        expect(await query(client, { document: made.document })).toEqual({
          text: '3',
          document: made.document,
        });
      }
      expect(await storeOf(other.port)).toMatchObject({ state: 'ready', held: 1, fetched: 1 });
    });
  },
);
