import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, expect, it } from 'vitest';
import type { ToolAnswer } from '../scripts/soak/answer.js';
import { planCall } from '../scripts/soak/call-mix.js';
import { buildCorpus } from '../scripts/soak/documents.js';
import { callWithHandles, HandleMix } from '../scripts/soak/handle-mix.js';
import { callSeed } from '../scripts/soak/random.js';
import { EnginePool } from '../src/engine/runtime/pool.js';
import { HELD_DOCUMENT_OVERHEAD_BYTES } from '../src/limits.js';
import { createServer } from '../src/server.js';
import { HeldDocuments } from '../src/tools/held-documents.js';

/*
 * The soak (scripts/soak.ts) judges RSS less the text the session holds by design, and learns
 * that text from the answers alone: every text an answer gave a handle for, least recently used
 * evicted first within the session's bound (the store's bounds it imports from src/limits.ts).
 * This pins that mirror to the server's own store, so a change to what the store keeps changes
 * the soak with it instead of skewing its verdict.
 */

const engine = new EnginePool({ size: 1 });
afterAll(() => engine.close());

it("counts exactly the text the server's store holds, through eviction and refusals", async () => {
  // A bound of a few of the corpus's documents, so that the store evicts often.
  const sessionBytes = 600 * 1024;
  const documents = new HeldDocuments({ sessionBytes });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createServer(engine, { cacheDocuments: true, documents }).connect(serverSide);
  const client = new Client({ name: 'soak-mirror', version: '1' });
  await client.connect(clientSide);

  const corpus = buildCorpus({ seed: 5 });
  const mix = new HandleMix({ sessionBytes });
  for (let index = 0; index < 400; index++) {
    const plan = planCall(corpus, callSeed(5, index), { hugeRate: 0 });
    const answer = await callWithHandles(
      mix,
      plan,
      index,
      (args) => client.callTool({ name: plan.tool, arguments: args }) as Promise<ToolAnswer>,
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
