import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll } from 'vitest';
import { EnginePool } from '../../src/engine/runtime/pool.js';
import { createServer, type ServerOptions } from '../../src/server.js';

export type CallResult = Awaited<ReturnType<Client['callTool']>>;

/** The real server on its own engine pool, and an SDK client linked to it in memory. */
export async function connectInMemory(
  name: string,
  workers = 2,
  options: ServerOptions = {},
): Promise<{ client: Client; close(): Promise<void> }> {
  const engine = new EnginePool({ size: workers });
  const client = await clientOf(engine, name, options);
  return {
    client,
    async close() {
      await client.close();
      await engine.close();
    },
  };
}

/** A new session of the real server over `engine` (a pool a test set up), through an SDK client in memory. */
export async function clientOf(
  engine: EnginePool,
  name: string,
  options: ServerOptions = {},
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createServer(engine, options).connect(serverSide);
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/** The first text content of a tool result. */
export const textOf = (result: CallResult): string =>
  (result.content as Array<{ type: string; text: string }>)[0]?.text ?? '';

/**
 * `connectInMemory` for the test file that calls it: connected before its tests, closed after;
 * `call` calls a tool, `client()` is the client itself.
 */
export function inMemoryClient(name: string, options: ServerOptions = {}) {
  let connection: Awaited<ReturnType<typeof connectInMemory>> | undefined;
  beforeAll(async () => {
    connection = await connectInMemory(name, 2, options);
  });
  afterAll(async () => {
    await connection?.close();
  });
  const client = (): Client => {
    if (!connection) throw new Error('the in-memory client is connected in beforeAll');
    return connection.client;
  };
  return {
    client,
    call: (tool: string, args: Record<string, unknown>) =>
      client().callTool({ name: tool, arguments: args }) as Promise<CallResult>,
  };
}

/**
 * structuredContent without what a session adds to every answer about a text it was sent (ADR
 * 0016, 0049): the `document` and `schema` handles and the last note saying to pass them next
 * time. What is left is the answer itself.
 */
export function answerOf(structuredContent: unknown): Record<string, unknown> {
  const {
    document: _document,
    schema: _schema,
    notes,
    ...rest
  } = (structuredContent ?? {}) as {
    notes?: string[];
  } & Record<string, unknown>;
  const kept = (notes ?? []).filter((note) => !note.startsWith('Next time pass "'));
  return kept.length > 0 ? { ...rest, notes: kept } : rest;
}
