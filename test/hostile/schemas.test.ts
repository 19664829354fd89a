/**
 * Hostile schemas: a schema whose definitions chain through one another overflows libxml2's
 * small WebAssembly stack while it compiles, and used to corrupt the engine for every later
 * caller (docs/security-model.md). Two defences, each tested alone here: the chain is refused
 * before compiling (MAX_SCHEMA_CHAIN), and a worker whose stack was overrun, trapped or not, is
 * replaced before it serves another call (the stack guard).
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { EnginePool } from '../../src/engine/runtime/pool.js';
import { createServer } from '../../src/server.js';
import { type ChainKind, chainedSchema } from '../support/schema-chains.js';

type Result = Awaited<ReturnType<Client['callTool']>>;

const XS = 'http://www.w3.org/2001/XMLSchema';
const PLAIN_SCHEMA = `<xs:schema xmlns:xs="${XS}"><xs:element name="r" type="xs:int"/></xs:schema>`;
const pools: EnginePool[] = [];

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

async function session(engine: EnginePool): Promise<Client> {
  const server = createServer(engine);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'hostile-schemas', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

const text = (result: Result) => (result.content as Array<{ text: string }>)[0]?.text ?? '';

/** Every later caller, in sessions of its own, gets exact answers from every engine path. */
async function expectSoundForEveryone(engine: EnginePool): Promise<void> {
  for (let s = 0; s < 10; s++) {
    const client = await session(engine);
    const valid = await client.callTool({
      name: 'xml_validate',
      arguments: { xml: '<r>7</r>', xsd: PLAIN_SCHEMA },
    });
    expect(text(valid)).toBe('Valid: the document conforms to the schema.');
    const invalid = await client.callTool({
      name: 'xml_validate',
      arguments: { xml: '<r>x</r>', xsd: PLAIN_SCHEMA },
    });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toMatch(/^Invalid: 1 violation/);
    const count = await client.callTool({
      name: 'xml_query',
      arguments: { xml: '<a><b/><b/></a>', xpath: 'count(//b)' },
    });
    expect(text(count)).toBe('2');
    const bad = await client.callTool({ name: 'xml_query', arguments: { xml: '<a/>', xpath: '//b[' } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).not.toMatch(/stack|null function|signature/);
    await client.close();
  }
}

const REPROS: Array<[ChainKind, number]> = [
  ['restriction', 6000],
  ['restriction', 20000],
  ['union', 6000],
  ['substitution', 6000],
  ['extension', 20000],
];

describe('a schema of chained definitions', () => {
  it.each(REPROS)(
    '%s × %i, sent twice at once, is refused and every later caller is served',
    async (kind, links) => {
      const engine = new EnginePool({ size: 2 });
      pools.push(engine);
      const attacker = await session(engine);
      const xsd = chainedSchema(kind, links);
      const answers = await Promise.all(
        [0, 1].map(() => attacker.callTool({ name: 'xml_validate', arguments: { xml: '<r>x</r>', xsd } })),
      );
      for (const answer of answers) {
        expect(answer.isError).toBe(true);
        expect(text(answer)).toMatch(/chains its definitions \d+ links deep .*the limit is 500/);
      }
      await expectSoundForEveryone(engine);
    },
  );

  it.each(REPROS)(
    '%s × %i, let through to libxml2, overruns the stack: the worker is replaced, never reused',
    async (kind, links) => {
      // The chain bound lifted, so only the stack guard stands between this schema and the engine.
      // The overrun, not the time budget, must end the call, however loaded the machine.
      const engine = new EnginePool({
        size: 1,
        timeoutMs: 120_000,
        engineLimits: { maxSchemaChain: Number.MAX_SAFE_INTEGER },
      });
      pools.push(engine);
      const attacker = await session(engine);
      await attacker.callTool({ name: 'xml_check', arguments: { xml: '<warm/>' } });
      const [before] = engine.threadIds;
      const answer = await attacker.callTool({
        name: 'xml_validate',
        arguments: { xml: '<r>x</r>', xsd: chainedSchema(kind, links) },
      });
      expect(answer.isError).toBe(true);
      expect(text(answer)).toMatch(
        /^The XML engine (overran its stack|ran out of stack|failed on this input and was restarted)/,
      );
      await expectSoundForEveryone(engine);
      expect(engine.threadIds).not.toContain(before);
    },
  );
});
