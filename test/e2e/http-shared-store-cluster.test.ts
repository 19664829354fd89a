import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../support/http-server.js';
import { type RunningCluster, startRedisCluster } from '../support/redis-cluster.js';
import { service } from '../support/services.js';

/*
 * The built binary, twice, each given a different node of a real Redis Cluster (3 primaries,
 * 3 replicas) as its `--store` with `--store-cluster` (docs/adr/0052): a handle made on one
 * process is answered by the other, in a 2025-11-25 session and in stateless 2026-07-28 requests.
 */

const redisServer = service('redis-server');
const redisCli = service('redis-cli');
const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;

let cluster: RunningCluster | undefined;
const servers: RunningServer[] = [];
const clients: Client[] = [];

async function connect(server: RunningServer, era: '2025-11-25' | '2026-07-28'): Promise<Client> {
  const client = new Client({ name: 'e2e-cluster', version: '1' }, era === '2026-07-28' ? MODERN : {});
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  expect(client.getNegotiatedProtocolVersion()).toBe(era);
  return client;
}

async function count(client: Client, args: Record<string, unknown>) {
  const result = await client.callTool({ name: 'xml_query', arguments: { xpath: 'count(//a)', ...args } });
  return {
    text: (result.content as Array<{ text: string }>)[0]?.text,
    document: (result.structuredContent as { document?: string } | undefined)?.document,
  };
}

async function storeOf(server: RunningServer): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.origin}/healthz`);
  return ((await response.json()) as { store: Record<string, unknown> }).store;
}

describe.skipIf(!redisServer.path || !redisCli.path)(
  `two processes on different nodes of a Redis Cluster${redisServer.skipped}${redisCli.skipped}`,
  () => {
    beforeAll(async () => {
      cluster = await startRedisCluster(redisServer.path as string, redisCli.path as string);
      for (const port of cluster.ports.slice(0, 2))
        servers.push(
          await startServer('streamable-http', ['--store', `redis://127.0.0.1:${port}`, '--store-cluster']),
        );
    }, 180_000);
    afterAll(async () => {
      await Promise.all(clients.map((client) => client.close().catch(() => {})));
      await Promise.all(servers.map((server) => server.stop()));
      await cluster?.close();
    });

    it.each(['2026-07-28', '2025-11-25'] as const)(
      'answers on each process the handles made on the other, in %s',
      async (era) => {
        const [a, b] = servers as [RunningServer, RunningServer];
        for (const [maker, user] of [
          [a, b],
          [b, a],
        ] as const) {
          // Several texts, so that their keys land in the slots of every primary.
          for (let n = 1; n <= 6; n++) {
            const made = await count(await connect(maker, era), { xml: `<r>${'<a/>'.repeat(n)}</r>` });
            expect(made.text).toBe(String(n));
            expect(await count(await connect(user, era), { document: made.document })).toEqual({
              text: String(n),
              document: made.document,
            });
          }
        }
        for (const server of servers) {
          expect(server.stderr()).toMatch(
            /shared store redis:\/\/127\.0\.0\.1:\d+: connected to the cluster \(3 primaries\)/,
          );
          expect(await storeOf(server)).toMatchObject({
            mode: 'cluster',
            state: 'ready',
            writesFailed: 0,
            redirects: 0,
          });
        }
      },
    );
  },
);
