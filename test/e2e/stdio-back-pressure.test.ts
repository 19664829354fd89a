/**
 * The built binary over stdio with a client that does not read its replies
 * (docs/adr/0010-output-back-pressure.md): the server stops reading requests instead of holding
 * every reply in memory, answers everything once the client reads, and exits when stdout fails.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { describe, expect, it, onTestFinished } from 'vitest';
import { MAX_DOCUMENT_BYTES, MAX_IN_FLIGHT_REQUEST_BYTES } from '../../src/limits.js';
import { CLI, initialize, initialized } from './binary.js';

/** 255 nested elements, repeated to fill 8 MiB: indented by 16, each answer is ~128 MB. */
const CHAIN = `${'<b>'.repeat(254)}<b/>${'</b>'.repeat(254)}`;
const CHAINS = Math.floor((MAX_DOCUMENT_BYTES - 7) / CHAIN.length);
const ROOT = `<r>${CHAIN.repeat(CHAINS)}</r>`;
const DEEP = ROOT.padEnd(MAX_DOCUMENT_BYTES, ' ');
const FORMATTED_LINES = 2 + CHAINS * (2 * 254 + 1);

const formatCall = (id: number) =>
  `${JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'xml_format', arguments: { xml: DEEP, indent: 16 } },
  })}\n`;

const written = (stream: Writable, data: string) =>
  new Promise<void>((resolve, reject) => stream.write(data, (error) => (error ? reject(error) : resolve())));

/** Each reply line as it completes, so the test never holds more than one ~128 MB line. */
function onLines(stream: Readable, each: (line: Buffer) => void): void {
  let pieces: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
      pieces.push(chunk.subarray(start, newline));
      each(Buffer.concat(pieces));
      pieces = [];
      start = newline + 1;
    }
    if (start < chunk.length) pieces.push(chunk.subarray(start));
  });
}

describe('stdio back-pressure of the built binary', () => {
  it('stops reading requests while its replies are unread, then answers every one', async () => {
    const child = spawn(process.execPath, [CLI], { stdio: ['pipe', 'pipe', 'pipe'] });
    onTestFinished(() => void child.kill());
    child.stdout.pause();
    let stderr = '';
    const noticed = new Promise<'noticed'>((resolve) =>
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        if (stderr.includes('wait for the client to read')) resolve('noticed');
      }),
    );
    await written(child.stdin, `${initialize()}\n${initialized}\n`);
    // One request at a time: a write is called back once the pipe took all of it, so the count
    // says how many requests the server has read (all but the pipe's few hundred KiB).
    // The server reads requests until those owed an answer reach the bound (two, at 8 MiB).
    const inFlight = Math.ceil(MAX_IN_FLIGHT_REQUEST_BYTES / formatCall(1).length);
    let requestsTaken = 0;
    const allTaken = (async () => {
      for (let id = 1; id <= inFlight + 1; id++) {
        await written(child.stdin, formatCall(id));
        requestsTaken++;
      }
      return 'all taken' as const;
    })();

    // Their replies (~128 MB each) stay unread, so the next request is never read: without
    // back-pressure it is, and no notice comes.
    expect(await Promise.race([noticed, allTaken])).toBe('noticed');
    expect(requestsTaken).toBe(inFlight);

    const texts = new Map<unknown, { length: number; lines: number; same: boolean }>();
    let first: string | undefined;
    onLines(child.stdout, (line) => {
      const reply = JSON.parse(line.toString('utf8')) as {
        id: unknown;
        result?: { content?: Array<{ text: string }> };
      };
      const text = reply.result?.content?.[0]?.text;
      if (reply.id === 0 || text === undefined) return;
      first ??= text;
      texts.set(reply.id, { length: text.length, lines: text.split('\n').length, same: text === first });
    });
    child.stdout.resume();
    expect(await allTaken).toBe('all taken');
    child.stdin.end();
    const [code] = (await once(child, 'exit')) as [number | null];

    expect(code).toBe(0);
    expect([...texts.keys()].sort()).toEqual(Array.from({ length: inFlight + 1 }, (_, i) => i + 1));
    for (const text of texts.values()) expect(text).toMatchObject({ lines: FORMATTED_LINES, same: true });
    expect(first?.length).toBeGreaterThan(100_000_000);
  }, 120_000);

  it('exits when its stdout is closed, instead of living on answering nothing', async () => {
    const child = spawn(process.execPath, [CLI], { stdio: ['pipe', 'pipe', 'pipe'] });
    onTestFinished(() => void child.kill());
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout.destroy();
    // stdin stays open: only the failed stdout can end the process.
    child.stdin.write(`${initialize()}\n`);
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(stderr).toContain('EPIPE');
  });
});
