import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Readiness is polled; this only bounds a store that never comes up. */
const READY_MS = 60_000;

export interface RunningRedis {
  port: number;
  url: string;
  /** Stops it (SIGTERM, nothing saved) and waits until it has gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty, and waits until it answers. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
}

/** A loopback port free now (it may be taken before it is bound: callers try another). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** One PING: true on +PONG, false on anything else (refused, loading, not yet listening). */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.setTimeout(5_000, () => socket.destroy());
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      got += chunk;
      if (got.includes('\r\n')) {
        socket.destroy();
        resolve(got.startsWith('+PONG'));
      }
    });
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(false));
  });
}

/**
 * A real redis-server on a free loopback port, in a folder of its own, persisting nothing
 * (`--save '' --appendonly no`), as deploy/redis.conf has it.
 */
export async function startRedis(bin: string): Promise<RunningRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'oxml-redis-'));
  let child: ChildProcess | undefined;
  let port = 0;

  const launch = async (): Promise<boolean> => {
    const started = spawn(
      bin,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' },
    );
    child = started;
    const exited = once(started, 'exit');
    const deadline = Date.now() + READY_MS;
    while (Date.now() < deadline) {
      if (started.exitCode !== null || started.signalCode !== null) return false;
      if (await pong(port)) return true;
      await Promise.race([new Promise((resolve) => setTimeout(resolve, 50)), exited]);
    }
    started.kill('SIGKILL');
    throw new Error(`redis-server did not answer PING on port ${port} within ${READY_MS} ms`);
  };

  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGTERM');
    await exited;
  };

  // A free port can be taken between finding it and binding it: then another one.
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    if (await launch()) break;
    if (attempt === 4) throw new Error('redis-server did not start on any of five free ports');
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    async start() {
      if (!(await launch())) throw new Error(`redis-server did not start again on port ${port}`);
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
