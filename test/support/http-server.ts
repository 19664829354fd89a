import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { CLI } from './built-cli.js';

export interface RunningServer {
  url: string;
  origin: string;
  child: ChildProcess;
  stderr: () => string;
  stdout: () => string;
  /** Resolves when the process has exited, with how. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then the exit code; refuses a server that wrote to stdout. */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  /** The built binary to run; the checkout's by default. */
  bin?: string;
  /** Killed (SIGKILL) and refused if it has not announced its URL within this many ms. */
  startMs?: number;
  /** Arguments for node itself, before the binary (`--inspect=127.0.0.1:0`). */
  nodeArgs?: string[];
  /** The server's environment; this process's by default. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Starts a built binary on a free loopback port and resolves with the URL it announces on
 * stderr; rejects if it exits first.
 */
export async function startServer(
  transport: 'streamable-http' | 'sse',
  extraArgs: string[] = [],
  { bin = CLI, startMs, nodeArgs = [], env = process.env }: StartOptions = {},
): Promise<RunningServer> {
  const child = spawn(
    process.execPath,
    [...nodeArgs, bin, '--transport', transport, '--port', '0', ...extraArgs],
    { stdio: ['ignore', 'pipe', 'pipe'], env },
  );
  let stderr = '';
  let stdout = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      // The tail only: a server that logs every request must not grow this for ever.
      stderr = (stderr + chunk).slice(-65_536);
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    void exited.then(({ code }) => reject(new Error(`server exited (${code}) before listening: ${stderr}`)));
    if (startMs !== undefined) {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`server start took longer than ${startMs} ms`));
      }, startMs);
      void exited.finally(() => clearTimeout(timer));
      child.stderr?.on('data', () => {
        if (/listening on /.test(stderr)) clearTimeout(timer);
      });
    }
  });
  return {
    url,
    origin: new URL(url).origin,
    child,
    stderr: () => stderr,
    stdout: () => stdout,
    exited,
    async stop() {
      if (stdout !== '') throw new Error(`an HTTP server wrote to stdout: ${stdout}`);
      child.kill('SIGTERM');
      return (await exited).code;
    },
  };
}
