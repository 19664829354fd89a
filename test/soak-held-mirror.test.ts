import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, expect, it } from 'vitest';
import { EnginePool } from '../src/engine/runtime/pool.js';
import { HELD_DOCUMENT_OVERHEAD_BYTES, MAX_DOCUMENT_BYTES, MAX_HELD_SESSION_BYTES } from '../src/limits.js';
import { createServer } from '../src/server.js';
import { HeldDocuments } from '../src/tools/document-handles.js';

/*
 * The soak (scripts/soak.mjs) judges RSS less the text the session holds by design, and learns
 * that text from the answers alone: every text an answer gave a handle for, least recently used
 * evicted first within the session's bound. This pins that mirror to the server's own store, so a
 * change to what the store keeps changes the soak with it instead of skewing its verdict.
 */

interface Plan {
  tool: string;
  args: Record<string, unknown>;
}
interface Mix {
  readonly heldBytes: number;
  readonly heldTexts: number;
  readonly stats: { byHandle: number; notHeld: number };
}
interface Soak {
  buildCorpus(options: { seed: number }): unknown;
  planCall(corpus: unknown, seed: number, options: { hugeRate: number }): Plan;
  callSeed(seed: number, index: number): number;
  callWithHandles(
    mix: Mix,
    plan: Plan,
    index: number,
    send: (args: Record<string, unknown>) => Promise<unknown>,
  ): Promise<{ problem?: string }>;
  HandleMix: new (options: { sessionBytes: number }) => Mix;
  HELD_SESSION_BYTES: number;
  HELD_OVERHEAD_BYTES: number;
  MAX_HELD_TEXT_BYTES: number;
}

const soakPath = new URL('../scripts/soak.mjs', import.meta.url).href;
const soak = (await import(soakPath)) as Soak;
const engine = new EnginePool({ size: 1 });
afterAll(() => engine.close());

it("has the store's bounds of src/limits.ts", () => {
  expect(soak.HELD_SESSION_BYTES).toBe(MAX_HELD_SESSION_BYTES);
  expect(soak.HELD_OVERHEAD_BYTES).toBe(HELD_DOCUMENT_OVERHEAD_BYTES);
  expect(soak.MAX_HELD_TEXT_BYTES).toBe(MAX_DOCUMENT_BYTES);
});

it("counts exactly the text the server's store holds, through eviction and refusals", async () => {
  // A bound of a few of the corpus's documents, so that the store evicts often.
  const sessionBytes = 600 * 1024;
  const documents = new HeldDocuments({ sessionBytes });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createServer(engine, { cacheDocuments: true, documents }).connect(serverSide);
  const client = new Client({ name: 'soak-mirror', version: '1' });
  await client.connect(clientSide);

  const corpus = soak.buildCorpus({ seed: 5 });
  const mix = new soak.HandleMix({ sessionBytes });
  for (let index = 0; index < 400; index++) {
    const plan = soak.planCall(corpus, soak.callSeed(5, index), { hugeRate: 0 });
    const answer = await soak.callWithHandles(mix, plan, index, (args) =>
      client.callTool({ name: plan.tool, arguments: args }),
    );
    expect(answer.problem, `call ${index}`).toBeUndefined();
    expect(
      [mix.heldTexts, mix.heldBytes + mix.heldTexts * HELD_DOCUMENT_OVERHEAD_BYTES],
      `call ${index}`,
    ).toEqual([documents.size, documents.bytes]);
  }
  // The bound was reached, and handles the store had evicted were refused and sent again.
  expect(mix.stats.notHeld).toBeGreaterThan(0);
  expect(documents.bytes).toBeGreaterThan(sessionBytes / 2);
  await client.close();
}, 120_000);
