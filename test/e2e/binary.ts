import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { CLI } from '../support/built-cli.js';

export { CLI };

export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'e2e', version: '1' },
};

export interface RawRun {
  replies: Array<Record<string, unknown>>;
  stdout: string;
  stderr: string;
  code: number | null;
}

/**
 * Writes raw lines to the built binary's stdin, closes it, and collects every reply line.
 * `nodeArgs` go to node before the script (e.g. `--import` of a preload).
 */
export async function runRaw(
  lines: Array<string | Buffer>,
  args: string[] = [],
  nodeArgs: string[] = [],
): Promise<RawRun> {
  const child = spawn(process.execPath, [...nodeArgs, CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  for (const line of lines) child.stdin.write(typeof line === 'string' ? `${line}\n` : line);
  child.stdin.end();
  // 'close', not 'exit': the process can exit before its last stdout bytes have been read.
  const [code] = (await once(child, 'close')) as [number | null];
  const replies = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { replies, stdout, stderr, code };
}

export { initialize, initialized } from '../support/stdio-lines.js';
