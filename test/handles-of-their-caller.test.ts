import { afterAll, describe, expect, it } from 'vitest';
import { HeldDocuments } from '../src/tools/held-documents.js';
import { connectInMemory, textOf } from './support/in-memory-server.js';
import { NOT_HELD } from './support/sdk-client.js';

/*
 * The MCP server told its caller (as the HTTP transports tell it with authentication on,
 * docs/adr/0054): a handle made in one caller's session or request answers that caller only.
 */

const documents = new HeldDocuments();
const opened: Array<Awaited<ReturnType<typeof connectInMemory>>> = [];
afterAll(async () => {
  for (const connection of opened) await connection.close();
});

async function as(owner: string, session: boolean) {
  const connection = await connectInMemory(`caller-${owner}`, 1, {
    documents,
    owner,
    ...(session ? { cacheDocuments: true } : { holdTexts: true }),
  });
  opened.push(connection);
  return connection.client;
}

describe('handles of their caller, through the MCP server', () => {
  it.each([
    ['a session', true],
    ['stateless requests', false],
  ])('answers a handle made in %s to its caller, and not to another', async (_kind, session) => {
    const alice = await as('alice', session);
    const aliceElsewhere = await as('alice', !session);
    const bob = await as('bob', session);
    const made = await alice.callTool({ name: 'xml_inspect', arguments: { xml: '<r><a/><a/></r>' } });
    const document = (made.structuredContent as { document: string }).document;
    const query = { name: 'xml_query', arguments: { document, xpath: 'count(//a)' } };
    expect(textOf(await aliceElsewhere.callTool(query))).toBe('2');
    const stolen = await bob.callTool(query);
    expect(stolen.isError).toBe(true);
    expect(textOf(stolen)).toBe(NOT_HELD);
  });
});
