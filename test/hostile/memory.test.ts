/**
 * Hostile arguments that cost memory before any engine work: each is refused on the main thread
 * as the arguments are read, so it never waits in the queue holding its bytes, never crosses to
 * a worker, and the server answers the next call.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EnginePool } from '../../src/engine/runtime/pool.js';
import { MAX_NAMESPACE_BINDINGS, MAX_XPATH_LENGTH } from '../../src/limits.js';
import { createServer } from '../../src/server.js';

type Result = Awaited<ReturnType<Client['callTool']>>;

let engine: EnginePool;
let client: Client;

beforeAll(async () => {
  // What is tested is the size of each answer, not the time it takes: a loaded machine may take
  // longer than the ordinary budget to walk 600,000 names.
  engine = new EnginePool({ size: 1, timeoutMs: 120_000 });
  const server = createServer(engine);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: 'hostile-memory', version: '1.0.0' });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client.close();
  await engine.close();
});

const text = (result: Result) => (result.content as Array<{ text: string }>)[0]?.text ?? '';

async function refusedBeforeTheEngine(args: Record<string, unknown>): Promise<string> {
  const run = vi.spyOn(engine, 'run');
  try {
    const result = await client.callTool({ name: 'xml_query', arguments: args });
    expect(result.isError).toBe(true);
    expect(run).not.toHaveBeenCalled();
    return text(result);
  } finally {
    run.mockRestore();
  }
}

describe('arguments bounded before the queue', () => {
  it('refuses a 9 MB expression without queueing it, naming the limit', async () => {
    const message = await refusedBeforeTheEngine({ xml: '<r/>', xpath: `//a${'|//a'.repeat(2_250_000)}` });
    expect(message).toContain('`xpath`');
    expect(message).toContain(`limit of ${MAX_XPATH_LENGTH} characters`);
  });

  it('refuses a million namespace bindings without queueing them, naming the limit', async () => {
    const namespaces: Record<string, string> = {};
    for (let i = 0; i < 1_000_000; i++) namespaces[`p${i}`] = `urn:${i}`;
    const message = await refusedBeforeTheEngine({ xml: '<r/>', xpath: 'count(/)', namespaces });
    expect(message).toContain('`namespaces`');
    expect(message).toContain(`limit of ${MAX_NAMESPACE_BINDINGS} bindings`);
  });

  it('refuses an over-long prefix or URI in `namespaces`', async () => {
    expect(
      await refusedBeforeTheEngine({ xml: '<r/>', xpath: '1', namespaces: { ['p'.repeat(300)]: 'urn:x' } }),
    ).toContain('prefix longer than');
    expect(
      await refusedBeforeTheEngine({ xml: '<r/>', xpath: '1', namespaces: { p: `urn:${'x'.repeat(5000)}` } }),
    ).toContain('namespace URI longer than');
  });

  it('accepts the largest expression and binding count allowed, and answers them exactly', async () => {
    const namespaces: Record<string, string> = {};
    for (let i = 0; i < MAX_NAMESPACE_BINDINGS; i++) namespaces[`p${i}`] = `urn:${i}`;
    const xpath = `count(/r)${' '.repeat(MAX_XPATH_LENGTH - 'count(/r)'.length)}`;
    const result = await client.callTool({
      name: 'xml_query',
      arguments: { xml: '<r/>', xpath, namespaces },
    });
    expect(text(result)).toBe('1');
  });
});

describe('answers bounded whatever the document', () => {
  it('answers xml_inspect on 600,000 distinct element names in a bounded reply with the exact totals', async () => {
    const names = Array.from({ length: 600_000 }, (_, i) => `<n${i}/>`).join('');
    const result = await client.callTool({ name: 'xml_inspect', arguments: { xml: `<r>${names}</r>` } });
    const message = text(result);
    expect(message).toContain('Elements: 600001 in 600001 names');
    expect(message).toMatch(/\[\d+ less frequent names left out: output budget of 8000 characters/);
    expect(message.length).toBeLessThanOrEqual(8000);
    expect(JSON.stringify(result).length).toBeLessThan(200_000);
    expect(result.structuredContent).toMatchObject({ distinctElements: 600_001, truncated: true });
  });
});
