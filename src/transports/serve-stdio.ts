import type { Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { EnginePool } from '../engine/runtime/pool.js';
import { DEFAULT_CALL_TIMEOUT_MS } from '../limits.js';
import { createServer, type ServerOptions } from '../server.js';
import { LineStdioTransport } from './stdio.js';

/** How long the last replies may take to reach a client that still holds stdout open. */
const FLUSH_GRACE_MS = DEFAULT_CALL_TIMEOUT_MS * 3;

/**
 * Serves every protocol revision on this process's stdin/stdout: the SDK's `serveStdio`
 * decides the era from the opening message (an `initialize` handshake, or a 2026-07-28
 * request carrying its revision in `_meta`); our transport does the framing.
 * Resolves when the session is over: at the end of input once every owed reply was written
 * (undefined), or when stdout failed (the error). The caller exits then: nothing else would
 * end a process whose client has gone (a stdin still open keeps it alive).
 */
export async function runStdio(
  engine: EnginePool,
  log: (message: string) => void,
  documents?: ServerOptions['documents'],
): Promise<Error | undefined> {
  let noticed = false;
  const transport = new LineStdioTransport(process.stdin, process.stdout, {
    // Once: a client reading a huge reply passes the bound too, for as long as it reads.
    onUnreadOutput: (bytes) => {
      if (noticed) return;
      noticed = true;
      log(
        `${mebibytes(bytes)} MiB of replies wait for the client to read them; requests are read as it does (said once)`,
      );
    },
  });
  const onError = (error: Error) => log(error.message);
  // The process serves one client, so a connection in any revision, 2026-07-28 included, is one
  // session: its parsed documents and its handles are kept for its next calls, in `documents`
  // (cli.ts gives a store without idle expiry: the connection is the lifetime; docs/adr/0039).
  const factory = () => createServer(engine, { cacheDocuments: true, byteTexts: transport, documents });
  serveStdio(factory, { transport, onerror: onError });
  const failure = await transport.closed;
  if (!failure) await flushed(process.stdout, FLUSH_GRACE_MS);
  return failure;
}

const mebibytes = (bytes: number) => Math.round(bytes / (1024 * 1024));

/**
 * Resolves when everything written has reached the client (an empty write is called back after
 * the writes before it), or after `ms` at most.
 */
async function flushed(stream: Writable, ms: number): Promise<void> {
  if (stream.writableLength === 0) return;
  await Promise.race([
    new Promise<void>((resolve) => stream.write('', () => resolve())),
    delay(ms, undefined, { ref: false }),
  ]);
}
