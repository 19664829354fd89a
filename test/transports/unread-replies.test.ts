import http from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Listening, listen } from '../../src/transports/http-common.js';
import type { UnreadReplies } from '../../src/transports/unread-replies.js';

const BIG = 32 * 1024 * 1024;
let listening: (Listening & { unread: UnreadReplies }) | undefined;
afterEach(async () => {
  await listening?.close();
  listening = undefined;
});

/** Answers `/big` with 32 MiB at once and anything else with a few bytes. */
const handler = async (req: http.IncomingMessage, res: http.ServerResponse) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(req.url === '/big' ? 'x'.repeat(BIG) : 'small');
};

/** Sends a request whose reply is not read until `read()`; which then resolves with the bytes that came. */
function unreadRequest(url: string): { read(): Promise<number> } {
  const response = new Promise<http.IncomingMessage>((resolve) => {
    http
      .get(url, (res) => {
        res.pause();
        resolve(res);
      })
      .on('error', () => {});
  });
  return {
    read: async () => {
      const res = await response;
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      await new Promise((resolve) => {
        res.on('close', resolve);
        res.on('error', resolve);
        res.resume();
      });
      return bytes;
    },
  };
}

describe('replies left unread over HTTP', () => {
  it('are cut off, largest first, once they pass the process bound, and other clients are served', async () => {
    listening = await listen(handler, '127.0.0.1', 0, '/', () => {}, 8 * 1024 * 1024);
    const base = new URL(listening.url);
    const unread = [0, 1, 2].map(() => unreadRequest(new URL('/big', base).toString()));
    await vi.waitFor(() => expect(listening?.unread.cut).toBe(3), { timeout: 20_000, interval: 20 });
    // Each connection was closed with most of its reply never sent.
    for (const bytes of await Promise.all(unread.map((request) => request.read()))) {
      expect(bytes).toBeLessThan(BIG);
    }
    const served = await fetch(new URL('/small', base));
    expect(await served.text()).toBe('small');
  });

  it('leaves a reply alone while what is unread fits the bound', async () => {
    listening = await listen(handler, '127.0.0.1', 0, '/', () => {}, 4 * BIG);
    const base = new URL(listening.url);
    const slow = await new Promise<http.IncomingMessage>((resolve) =>
      http.get(new URL('/big', base).toString(), resolve),
    );
    slow.pause();
    // Another request makes the bound be looked at; the unread 32 MiB fit, so nothing is cut.
    expect(await (await fetch(new URL('/small', base))).text()).toBe('small');
    listening.unread.sweep();
    expect(listening.unread.cut).toBe(0);
    let received = 0;
    slow.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    const ended = new Promise((resolve) => slow.on('end', resolve));
    slow.resume();
    await ended;
    expect(received).toBe(BIG);
  });
});
