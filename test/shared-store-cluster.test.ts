import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeldDocuments } from '../src/tools/held-documents.js';
import { connectRedisTexts } from '../src/tools/shared-store/redis-texts.js';
import { SharedDocuments } from '../src/tools/shared-store/shared-documents.js';
import { type CallResult, connectInMemory, textOf } from './support/in-memory-server.js';
import { type RunningCluster, startRedisCluster, until } from './support/redis-cluster.js';
import { service } from './support/services.js';

/*
 * The shared store on a real Redis Cluster, three primaries with a replica each, on loopback
 * (docs/adr/0052). Two stores seeded on different nodes are two processes; in the fault tests each
 * has the real MCP server in front of it, and clients call by handle while a slot range migrates
 * or a primary is killed. Every answer is checked: a text's count of <a/> is its call's number.
 */

const redisServer = service('redis-server');
const redisCli = service('redis-cli');
const REDIS_CONF = new URL('../deploy/redis.conf', import.meta.url);
/** Bounds on the call loops, so that a cluster that never recovers ends the test, not the run. */
const MAX_CALLS = 1_000;
const CALLS_AFTER = 20;

let cluster: RunningCluster;
const opened: Array<{ close(): Promise<void> }> = [];

interface AProcess {
  store: SharedDocuments;
  log: string[];
}

/** One process's store, given `seed` as its one node of the cluster, connected. */
async function aProcess(seed: number, cluster_ = true): Promise<AProcess> {
  const log: string[] = [];
  const remote = await connectRedisTexts(`redis://127.0.0.1:${seed}`, (line) => log.push(line), {
    cluster: cluster_,
  });
  const store = new SharedDocuments(new HeldDocuments(), remote);
  opened.push(store);
  await until(() => store.health().state === 'ready', 'the store is connected');
  return { store, log };
}

/** The real MCP server in front of a process's store, as a stateless HTTP request has it. */
async function aServer(process: AProcess) {
  const server = await connectInMemory('cluster', 1, { holdTexts: true, documents: process.store });
  opened.push(server);
  return (args: Record<string, unknown>) =>
    server.client.callTool({
      name: 'xml_query',
      arguments: { xpath: 'count(//a)', ...args },
    }) as Promise<CallResult>;
}

const xml = (n: number) => `<r>${'<a/>'.repeat(n)}</r>`;
const SEND_AGAIN = /is no longer held; send its text|could not be fetched: the shared store/;

type Outcome = 'answered' | 'send again' | 'wrong' | 'lost';

interface Counts {
  calls: number;
  /** Answered once `done()` held: the store serves again. */
  'answered after': number;
  answered: number;
  'send again': number;
  wrong: number;
  lost: number;
}

/**
 * One call as a client makes it: the text sent to A, then its handle to B. Told to send the text
 * again, the client does, and that answer must be right too.
 */
async function callByHandle(
  a: Awaited<ReturnType<typeof aServer>>,
  b: Awaited<ReturnType<typeof aServer>>,
  n: number,
): Promise<Outcome> {
  try {
    const made = await a({ xml: xml(n) });
    const handle = (made.structuredContent as { document?: string } | undefined)?.document;
    if (textOf(made) !== String(n) || !handle) return 'wrong';
    const used = await b({ document: handle });
    if (!used.isError && textOf(used) === String(n)) return 'answered';
    if (!used.isError || !SEND_AGAIN.test(textOf(used))) return 'wrong';
    const resent = await b({ xml: xml(n) });
    return !resent.isError && textOf(resent) === String(n) ? 'send again' : 'wrong';
  } catch {
    return 'lost';
  }
}

/**
 * Two clients call by handle; once some calls are under way `fault` starts (a migration, a
 * kill), and they go on until it is over and CALLS_AFTER more were answered, or MAX_CALLS were
 * made. The counts of what came back.
 */
async function callsAround(
  a: Awaited<ReturnType<typeof aServer>>,
  b: Awaited<ReturnType<typeof aServer>>,
  first: number,
  fault: () => Promise<unknown>,
): Promise<Counts> {
  const counts: Counts = { calls: 0, 'answered after': 0, answered: 0, 'send again': 0, wrong: 0, lost: 0 };
  let over = false;
  const faulting = until(() => counts.calls >= 5, 'calls under way')
    .then(fault)
    .finally(() => {
      over = true;
    });
  let next = first;
  const client = async () => {
    while (counts.calls < MAX_CALLS && counts['answered after'] < CALLS_AFTER) {
      const after = over;
      counts.calls++;
      const outcome = await callByHandle(a, b, next++);
      counts[outcome]++;
      if (after && outcome === 'answered') counts['answered after']++;
    }
  };
  await Promise.all([client(), client(), faulting]);
  return counts;
}

describe.skipIf(!redisServer.path || !redisCli.path)(
  `the shared store on a real Redis Cluster, 3 primaries and 3 replicas${redisServer.skipped}${redisCli.skipped}`,
  () => {
    beforeAll(async () => {
      cluster = await startRedisCluster(redisServer.path as string, redisCli.path as string);
    }, 180_000);
    afterAll(async () => {
      await Promise.all(opened.map((each) => each.close()));
      await cluster?.close();
    });

    it('answers in one process the handles made in another seeded on a different node, the texts spread over the three primaries', async () => {
      const [first, second] = cluster.ports as [number, number];
      const a = await aProcess(first);
      const b = await aProcess(second);
      expect(a.log).toContainEqual(expect.stringMatching(/connected to the cluster \(3 primaries\)/));
      const made = Array.from({ length: 30 }, (_, i) => a.store.stateless.hold(xml(i + 1)));
      await Promise.all(made.map((kept) => kept?.stored));

      for (const [i, kept] of made.entries()) {
        const bytes = await b.store.stateless.get(kept?.handle as string);
        expect(Buffer.from(bytes as Uint8Array).toString()).toBe(xml(i + 1));
      }
      expect(b.store.health()).toMatchObject({
        mode: 'cluster',
        state: 'ready',
        fetched: 30,
        redirects: 0,
        unreachable: 0,
      });
      expect(a.store.health()).toMatchObject({ writesFailed: 0, timeouts: 0, refused: 0 });
      // No hash tag: each primary holds some of them.
      const primaries = (await cluster.nodes()).filter((node) => node.role === 'primary');
      for (const primary of primaries)
        expect(Number(await cluster.cli(primary.port, 'DBSIZE'))).toBeGreaterThan(0);
    });

    it("works as deploy/redis.conf's ACL user, given only its keys and commands, on every node", async () => {
      const rule = /^# user oxml on >CHANGE-ME (.*)$/m.exec(readFileSync(REDIS_CONF, 'utf8'))?.[1];
      if (!rule) throw new Error(`no ACL user in ${REDIS_CONF}`);
      for (const port of cluster.ports)
        await cluster.cli(port, 'ACL', 'SETUSER', 'oxml', 'on', '>cluster-test', ...rule.split(' '));
      const remote = await connectRedisTexts(
        `redis://oxml:cluster-test@127.0.0.1:${cluster.ports[4]}`,
        () => {},
        {
          cluster: true,
        },
      );
      const store = new SharedDocuments(new HeldDocuments(), remote);
      opened.push(store);
      await until(() => store.health().state === 'ready', 'the store is connected as oxml');
      const b = await aProcess(cluster.ports[5] as number);
      const made = Array.from({ length: 12 }, (_, i) => store.stateless.hold(xml(200 + i)));
      await Promise.all(made.map((kept) => kept?.stored));
      for (const [i, kept] of made.entries())
        expect(
          Buffer.from((await b.store.stateless.get(kept?.handle as string)) as Uint8Array).toString(),
        ).toBe(xml(200 + i));
      expect(store.health()).toMatchObject({ writesFailed: 0, refused: 0, unreachable: 0 });
    });

    it('says at once that a node given as a single store is part of a cluster, and tells and counts each redirect', async () => {
      const primaries = (await cluster.nodes()).filter((node) => node.role === 'primary');
      const maker = await aProcess(primaries[0]?.port as number);
      const single = await aProcess(primaries[1]?.port as number, false);
      await until(() => single.log.some((line) => line.includes('start with --store-cluster')), 'it says so');
      expect(single.store.health()).toMatchObject({ mode: 'single', redirects: 1 });

      // Texts on every primary: those in the other primaries' slots are refused, each refusal counted.
      const made = Array.from({ length: 12 }, (_, i) => maker.store.stateless.hold(xml(100 + i)));
      await Promise.all(made.map((kept) => kept?.stored));
      const found = await Promise.allSettled(made.map((kept) => single.store.lookup(kept?.handle as string)));
      const refused = found.filter((each) => each.status === 'rejected').length;
      expect(refused).toBeGreaterThan(0);
      expect(single.store.health().redirects).toBe(1 + refused);
      expect(single.log).toContainEqual(
        expect.stringMatching(/redirected and not followed at 127\.0\.0\.1:\d+: MOVED \d+/),
      );
    });

    it('answers every call by handle rightly while a range of slots migrates to another primary', async () => {
      const nodes = await cluster.nodes();
      const [from, to] = nodes.filter((node) => node.role === 'primary') as [
        (typeof nodes)[0],
        (typeof nodes)[0],
      ];
      const processA = await aProcess(cluster.ports[2] as number);
      const processB = await aProcess(cluster.ports[3] as number);
      const [a, b] = [await aServer(processA), await aServer(processB)];

      // Texts in the slots that move, so that keys migrate while they are asked for.
      const before = Array.from({ length: 300 }, (_, i) => processA.store.stateless.hold(xml(3_000 + i)));
      await Promise.all(before.map((kept) => kept?.stored));

      const counts = await callsAround(a, b, 1_000, () =>
        cluster.cli(
          ...([from.port, '--cluster', 'reshard', `127.0.0.1:${from.port}`] as const),
          ...['--cluster-from', from.id, '--cluster-to', to.id, '--cluster-slots', '1000', '--cluster-yes'],
        ),
      );
      const faults = (p: AProcess) => {
        const { timeouts, redirects, refused, unreachable } = p.store.health();
        return { timeouts, redirects, refused, unreachable };
      };
      const [faultsA, faultsB] = [faults(processA), faults(processB)];
      process.stderr.write(
        `[cluster] slot migration during calls: ${JSON.stringify(counts)}; faults A ${JSON.stringify(faultsA)}, B ${JSON.stringify(faultsB)}\n`,
      );
      expect(counts).toMatchObject({ wrong: 0, lost: 0 });
      expect(counts['answered after']).toBeGreaterThanOrEqual(CALLS_AFTER);
      // Every redirect followed, nothing refused: a call is told to retry only if the machine was
      // too busy for the store's 2 s bound.
      expect({ ...faultsA, timeouts: 0 }).toEqual({ timeouts: 0, redirects: 0, refused: 0, unreachable: 0 });
      expect({ ...faultsB, timeouts: 0 }).toEqual({ timeouts: 0, redirects: 0, refused: 0, unreachable: 0 });
      expect(counts['send again']).toBeLessThanOrEqual(faultsA.timeouts + faultsB.timeouts);
      await until(
        () => processA.store.health().migrations > 0 && processB.store.health().migrations > 0,
        'both saw the slots move',
      );
    });

    it('loses no call and answers none wrongly while a primary is killed and its replica takes over', async () => {
      const nodes = await cluster.nodes();
      const victim = nodes.find(
        (node) => node.role === 'primary' && nodes.some((other) => other.primaryId === node.id),
      );
      if (!victim) throw new Error('no primary with a replica');
      const seeds = cluster.ports.filter((port) => port !== victim.port);
      const processA = await aProcess(seeds[0] as number);
      const processB = await aProcess(seeds[1] as number);
      const [a, b] = [await aServer(processA), await aServer(processB)];
      // Texts stored before the fault: afterwards each is there whole, or gone (a resend), never another.
      const before = Array.from({ length: 40 }, (_, i) => processA.store.stateless.hold(xml(5_000 + i)));
      await Promise.all(before.map((kept) => kept?.stored));

      const counts = await callsAround(a, b, 10_000, async () => {
        await cluster.kill(victim.port);
        await until(
          async () => (await cluster.nodes()).some((node) => node.id === victim.id && node.failed),
          'the primary is called failed',
        );
        await cluster.healthy();
      });
      process.stderr.write(`[cluster] primary killed during calls: ${JSON.stringify(counts)}\n`);
      expect(counts).toMatchObject({ wrong: 0, lost: 0 });
      expect(counts['answered after']).toBeGreaterThanOrEqual(CALLS_AFTER);

      const c = await aProcess(seeds[2] as number);
      let gone = 0;
      for (const [i, kept] of before.entries()) {
        const bytes = await c.store.stateless.get(kept?.handle as string);
        if (bytes === undefined) gone++;
        else expect(Buffer.from(bytes).toString()).toBe(xml(5_000 + i));
      }
      process.stderr.write(
        `[cluster] texts stored before the kill and gone after it: ${gone} of ${before.length}\n`,
      );
      // Told and counted: the dead node named in the log, the failover in the counts.
      const told = [...processA.log, ...processB.log].join('\n');
      expect(told).toContain(`127.0.0.1:${victim.port}`);
      await until(
        () => processA.store.health().failovers > 0 && processB.store.health().failovers > 0,
        'both saw the failover',
      );
    });
  },
);
