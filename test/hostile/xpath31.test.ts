/**
 * Hostile XPath 3.1 (issue 22): small expressions that build huge values. Each ends in an
 * `isError` (time or memory) or a right answer within the output budget, and the same server then
 * answers a normal query. The pool's time budget is short so the suite stays quick; the built
 * binary under its real budget is measured in test/e2e/xpath31.test.ts.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnginePool } from '../../src/engine/runtime/pool.js';
import { createServer } from '../../src/server.js';

type Result = Awaited<ReturnType<Client['callTool']>>;

let engine: EnginePool;
let client: Client;

/** A server on a one-worker pool with this time budget, and a client connected to it. */
async function connect(timeoutMs: number): Promise<{ engine: EnginePool; client: Client }> {
  const pool = new EnginePool({ size: 1, timeoutMs });
  const server = createServer(pool);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const connected = new Client({ name: 'hostile-xpath31', version: '1.0.0' });
  await connected.connect(clientSide);
  return { engine: pool, client: connected };
}

beforeAll(async () => {
  ({ engine, client } = await connect(1500));
});

afterAll(async () => {
  await client.close();
  await engine.close();
});

const text = (result: Result) => (result.content as Array<{ text: string }>)[0]?.text ?? '';
const ask = (xpath: string) =>
  client.callTool({ name: 'xml_query', arguments: { xml: '<r><a>1</a><a>2</a></r>', xpath } });

async function servesNext(): Promise<void> {
  const next = await ask('sum(//a ! number(.))');
  expect(text(next)).toBe('3\n(evaluated as XPath 3.1)');
}

describe('XPath 3.1 that would build huge values', () => {
  it.each([
    ['a range of 10^10 read to its end', '(1 to 10000000000)[last()]'],
    ['a 10^10-step for', 'for $i in 1 to 10000000000 return $i * 2'],
    ['a 50-million-item string-join', "string-join((1 to 50000000) ! 'x')"],
    ['millions of maps', "count((1 to 5000000) ! map { 'k': . })"],
  ])('%s ends in an isError naming the budget, and the server serves on', async (_name, xpath) => {
    const result = await ask(xpath);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/ran past its time budget|ran out of its memory budget/);
    await servesNext();
  });

  it('a regular expression whose counted repeat would take gigabytes is refused before it is compiled', async () => {
    // It had ended at a budget after filling a worker's heap; the engine now counts its states first.
    for (const xpath of ["matches('a', 'a{2147483647}')", "replace('a', '(a{1,1000}){1,1000}', 'x')"]) {
      const result = await ask(xpath);
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/FORX0002: The regular expression is too large to match here/);
    }
    await servesNext();
  });

  it('a range counted without being built is simply answered', async () => {
    expect(text(await ask('count(1 to 10000000000)'))).toBe('10000000000\n(evaluated as XPath 3.1)');
  });

  it('a backtracking regular expression is answered or stopped, never hangs', async () => {
    const result = await ask("matches(string-join((1 to 40) ! 'a') || 'b', '^(a|aa)+$')");
    expect(result.isError ? text(result) : text(result)).toMatch(/^false\n|ran past its time budget/);
    await servesNext();
  });

  it('200,000 values are cut at the output budget with the exact count', async () => {
    // Answered, not stopped: on a busy machine this takes more than the suite's short budget.
    const roomy = await connect(30_000);
    const result = await roomy.client
      .callTool({ name: 'xml_query', arguments: { xml: '<r/>', xpath: '1 to 200000', max_chars: 1000 } })
      .finally(async () => {
        await roomy.client.close();
        await roomy.engine.close();
      });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ type: 'sequence', count: 200_000, truncated: true });
    expect(text(result)).toContain('Showing');
    expect(text(result).length).toBeLessThan(2000);
  });
});
