import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectQuery } from '../scripts/soak/query-expectation.js';
import { type CallResult, connectInMemory } from './support/in-memory-server.js';

/*
 * The soak and `npm run scale` judge every budgeted answer with their own model of the cut
 * (scripts/soak/query-expectation.ts). A model that prices a trial cut ending in half a surrogate
 * pair as JSON's six-character escape shrinks past what fits, and calls the server's right answer
 * wrong (`npm run scale`: one wrong call in every run, seed 1, call 639).
 */

let connection: Awaited<ReturnType<typeof connectInMemory>>;
beforeAll(async () => {
  connection = await connectInMemory('soak-expectation', 1);
});
afterAll(() => connection.close());

it('agrees with the server on a value cut just after an astral character among escapes', async () => {
  const value = `${'say "hi" '.repeat(20)}rocket 🚀${' x'.repeat(40)}`;
  const rocket = value.indexOf('🚀');
  // Every budget whose trial cut can land on the pair, and its neighbours.
  for (let maxChars = rocket - 10; maxChars < rocket + 40; maxChars++) {
    const xml = `<r>${value.replaceAll('"', '&quot;')}</r>`;
    const result = (await connection.client.callTool({
      name: 'xml_query',
      arguments: { xml, xpath: 'string(/r)', max_chars: maxChars },
    })) as CallResult;
    const check = expectQuery('string', [value], { xpath: 'string(/r)', maxChars });
    expect(check(result as never), `max_chars ${maxChars}`).toBeUndefined();
  }
});
