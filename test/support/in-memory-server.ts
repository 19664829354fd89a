import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { EnginePool } from '../../src/engine/runtime/pool.js';
import { createServer } from '../../src/server.js';

export type CallResult = Awaited<ReturnType<Client['callTool']>>;

/** The real server on its own engine pool, and an SDK client linked to it in memory. */
export async function connectInMemory(
  name: string,
  workers = 2,
): Promise<{ client: Client; close(): Promise<void> }> {
  const engine = new EnginePool({ size: workers });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createServer(engine).connect(serverSide);
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    async close() {
      await client.close();
      await engine.close();
    },
  };
}

/** The first text content of a tool result. */
export const textOf = (result: CallResult): string =>
  (result.content as Array<{ type: string; text: string }>)[0]?.text ?? '';
