/**
 * Issue 24, H1: JSON nested tens of millions deep is refused from its bytes, before any parse
 * builds its value, by the built binary on stdio and over HTTP, while another session is served.
 * Before the fix a 19 MiB stdio line took the process to 1.6 GiB and an 86 MiB body to ~6 GiB;
 * the peak is asserted, never the time (the machine may be busy).
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { processMemory } from '../../scripts/lib/process-memory.js';
import { TOO_DEEP_MESSAGE } from '../../src/transports/json-shape.js';
import { CLI } from '../support/built-cli.js';
import { INITIALIZE_2025, POST_HEADERS } from '../support/http-requests.js';
import { type RunningServer, startServer } from '../support/http-server.js';
import { initialize, initialized } from '../support/stdio-lines.js';

/** Far below the gigabytes the parse of these messages took; a served process sits near 100 MiB. */
const PEAK_BOUND_KB = 1024 * 1024;
const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const callWith = (id: number, extra: string, meta = '') =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{${meta}"name":"xml_query","arguments":{"xml":"<r/>","xpath":"1","x":${extra}}}}`;

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe('JSON nested millions deep', () => {
  it('stdio: a 19 MiB line is refused with its id, the next request is answered, the peak stays low', async () => {
    const child = spawn(process.execPath, [CLI], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    const replies = new Promise<string[]>((resolve) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        const lines = out.split('\n').filter((line) => line !== '');
        if (lines.length >= 3) resolve(lines);
      });
    });
    child.stdin.write(`${initialize()}\n${initialized}\n`);
    child.stdin.write(`${callWith(1, nested(9_500_000))}\n`);
    child.stdin.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    const [, refused, ping] = (await replies).map((line) => JSON.parse(line));
    expect(refused).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32600, message: TOO_DEEP_MESSAGE } });
    expect(ping).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(processMemory(child.pid as number).hwmKb).toBeLessThan(PEAK_BOUND_KB);
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
  });

  it('Streamable HTTP: an 86 MiB body is answered 400 while another session pings, the peak stays low', async () => {
    server = await startServer('streamable-http');
    const { url } = server;
    const opened = await fetch(url, { method: 'POST', headers: POST_HEADERS, body: INITIALIZE_2025 });
    const session = opened.headers.get('mcp-session-id') as string;
    await opened.text();
    const meta =
      '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}},';
    const body = callWith(1, nested(45_000_000), meta);
    const [refused, ping] = await Promise.all([
      fetch(url, {
        method: 'POST',
        headers: { ...POST_HEADERS, 'mcp-protocol-version': '2026-07-28' },
        body,
      }),
      fetch(url, {
        method: 'POST',
        headers: { ...POST_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
        body: '{"jsonrpc":"2.0","id":2,"method":"ping"}',
      }),
    ]);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: TOO_DEEP_MESSAGE },
    });
    expect(ping.status).toBe(200);
    expect(await ping.text()).toContain('"result":{}');
    expect(processMemory(server.child.pid as number).hwmKb).toBeLessThan(PEAK_BOUND_KB);
  });
});
