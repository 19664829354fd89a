import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createServer } from '../server.js';
import type { EnginePool } from '../xml/pool.js';
import { LineStdioTransport } from './stdio.js';

/**
 * Serves every protocol revision on this process's stdin/stdout: the SDK's `serveStdio`
 * decides the era from the opening message (an `initialize` handshake, or a 2026-07-28
 * request carrying its revision in `_meta`); our transport does the framing.
 * Resolves when the client has gone (end of input) and every owed reply was written.
 */
export async function runStdio(
  engine: EnginePool,
  onError: (error: Error) => void,
): Promise<() => Promise<void>> {
  const transport = new LineStdioTransport(process.stdin, process.stdout);
  // A 2025 connection is one long session: its parsed documents are kept for its next calls.
  const factory = ({ era }: { era: 'legacy' | 'modern' }) =>
    createServer(engine, { cacheDocuments: era === 'legacy' });
  const handle = serveStdio(factory, { transport, onerror: onError });
  await transport.closed;
  return () => handle.close();
}
