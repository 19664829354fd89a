import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis-server.js';

/*
 * A real Redis Cluster on loopback (docs/adr/0052): six redis-server in cluster mode, joined by
 * `redis-cli --cluster create … --cluster-replicas 1`, so three primaries with a replica each,
 * persisting nothing. Every wait polls a condition the cluster reports (CLUSTER INFO, CLUSTER
 * NODES, INFO replication), never a fixed sleep; the bounds only stop a cluster that never
 * gets there.
 */

const READY_MS = 90_000;
/**
 * How long a node may be silent before the others call it failed and its replica takes over:
 * short, so that a failover test is quick, and long enough that a busy machine does not start
 * one by itself.
 */
export const NODE_TIMEOUT_MS = 3_000;

export interface ClusterNode {
  port: number;
  url: string;
  id: string;
  role: 'primary' | 'replica';
  /** For a replica, the id of its primary. */
  primaryId: string | undefined;
  failed: boolean;
}

export interface RunningCluster {
  ports: number[];
  /** redis-cli against the node on `port`; resolves with its output. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** The nodes as a live one sees them (CLUSTER NODES). */
  nodes(): Promise<ClusterNode[]>;
  /** Polls until every live node says cluster_state:ok with all slots served and every replica is in sync. */
  healthy(): Promise<void>;
  /** SIGKILL: gone without a word, as a crashed machine. */
  kill(port: number): Promise<void>;
  close(): Promise<void>;
}

export async function until(
  check: () => Promise<boolean> | boolean,
  what: string,
  ms = READY_MS,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startRedisCluster(redisServer: string, cliBin: string): Promise<RunningCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'oxml-redis-cluster-'));
  const children = new Map<number, ChildProcess>();

  const cli = (port: number, ...args: string[]) =>
    new Promise<string>((resolve, reject) => {
      execFile(
        cliBin,
        ['-h', '127.0.0.1', '-p', String(port), ...args],
        { timeout: 60_000 },
        (error, stdout, stderr) =>
          error
            ? reject(new Error(`redis-cli ${args.join(' ')}: ${error.message} ${stderr}`))
            : resolve(stdout),
      );
    });
  const answers = (port: number, ...args: string[]) => cli(port, ...args).catch(() => '');
  const live = () =>
    [...children].filter(([, child]) => child.exitCode === null && child.signalCode === null);

  const launch = async (): Promise<number> => {
    // Its client port and its cluster bus port, each found free; a port taken in between is
    // noticed (the server exits) and another pair is tried.
    for (let attempt = 0; attempt < 5; attempt++) {
      const [port, bus] = [await freePort(), await freePort()];
      const home = join(dir, String(port));
      mkdirSync(home);
      const child = spawn(
        redisServer,
        [
          ...['--port', String(port), '--cluster-port', String(bus), '--bind', '127.0.0.1'],
          ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'],
          ...[
            '--cluster-node-timeout',
            String(NODE_TIMEOUT_MS),
            '--save',
            '',
            '--appendonly',
            'no',
            '--dir',
            home,
          ],
        ],
        { stdio: 'ignore' },
      );
      const exited = once(child, 'exit');
      let up = false;
      const deadline = Date.now() + READY_MS;
      while (!up && child.exitCode === null && Date.now() < deadline) {
        up = (await answers(port, 'PING')).startsWith('PONG');
        if (!up) await Promise.race([new Promise((resolve) => setTimeout(resolve, 50)), exited]);
      }
      if (up) {
        children.set(port, child);
        return port;
      }
      child.kill('SIGKILL');
    }
    throw new Error('redis-server did not start in cluster mode on any of five pairs of free ports');
  };

  const nodes = async (): Promise<ClusterNode[]> => {
    for (const [port] of live()) {
      const table = await answers(port, 'CLUSTER', 'NODES');
      if (table === '') continue;
      return table
        .trim()
        .split('\n')
        .map((line) => {
          const [id = '', address = '', flags = '', primaryId = ''] = line.split(' ');
          const nodePort = Number(/:(\d+)@/.exec(address)?.[1]);
          return {
            port: nodePort,
            url: `redis://127.0.0.1:${nodePort}`,
            id,
            role: flags.includes('master') ? 'primary' : 'replica',
            primaryId: primaryId === '-' ? undefined : primaryId,
            failed: /\bfail\b/.test(flags.replaceAll(',', ' ')),
          } satisfies ClusterNode;
        });
    }
    throw new Error('no cluster node answers');
  };

  const healthy = () =>
    until(async () => {
      for (const [port] of live()) {
        const info = await answers(port, 'CLUSTER', 'INFO');
        if (!/cluster_state:ok/.test(info) || !/cluster_slots_ok:16384/.test(info)) return false;
        const replication = await answers(port, 'INFO', 'replication');
        if (/role:slave/.test(replication) && !/master_link_status:up/.test(replication)) return false;
      }
      return true;
    }, 'every live node says cluster_state:ok, all 16384 slots served, every replica in sync');

  const ports: number[] = [];
  try {
    for (let i = 0; i < 6; i++) ports.push(await launch());
    await cli(
      ports[0] as number,
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    );
    await healthy();
    // Each node must know all six before a client reads the slot map from any of them.
    await until(async () => {
      for (const port of ports)
        if (!/cluster_known_nodes:6/.test(await answers(port, 'CLUSTER', 'INFO'))) return false;
      return true;
    }, 'every node knows the six');
  } catch (error) {
    for (const child of children.values()) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  return {
    ports,
    cli,
    nodes,
    healthy,
    async kill(port) {
      const child = children.get(port);
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
    async close() {
      await Promise.all(
        [...children.values()].map(async (child) => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = once(child, 'exit');
          child.kill('SIGKILL');
          await exited;
        }),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
