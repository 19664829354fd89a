import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll } from 'vitest';
import { EnginePool } from '../../src/engine/runtime/pool.js';
import { createServer, type ServerOptions } from '../../src/server.js';

export type Result = Awaited<ReturnType<Client['callTool']>>;

/** The first text of a tool result: what the model reads. */
export const text = (result: Result) =>
  (result.content as Array<{ type: string; text: string }>)[0]?.text ?? '';

/**
 * `createServer()` and an SDK client linked in memory for the test file that calls it, closed
 * after its tests; `call` calls a tool, `client()` is the client itself.
 */
export function inMemoryClient(name: string, options: ServerOptions = {}) {
  let engine: EnginePool | undefined;
  let client: Client | undefined;
  beforeAll(async () => {
    engine = new EnginePool({ size: 2 });
    const server = createServer(engine, options);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name, version: '1.0.0' });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client?.close();
    await engine?.close();
  });
  const connected = (): Client => {
    if (!client) throw new Error('the in-memory client is connected in beforeAll');
    return client;
  };
  return {
    client: connected,
    call: (tool: string, args: Record<string, unknown>) =>
      connected().callTool({ name: tool, arguments: args }) as Promise<Result>,
  };
}
