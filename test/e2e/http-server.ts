import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { CLI } from './binary.js';

export interface RunningServer {
  url: string;
  origin: string;
  child: ChildProcess;
  stderr: () => string;
  stop(): Promise<number | null>;
}

/** Starts the built binary on a free loopback port and resolves with the URL it announces on stderr. */
export async function startServer(
  transport: 'streamable-http' | 'sse',
  extraArgs: string[] = [],
): Promise<RunningServer> {
  const child = spawn(process.execPath, [CLI, '--transport', transport, '--port', '0', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${stderr}`)));
  });
  return {
    url,
    origin: new URL(url).origin,
    child,
    stderr: () => stderr,
    async stop() {
      if (stdout !== '') throw new Error(`an HTTP server wrote to stdout: ${stdout}`);
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    },
  };
}
