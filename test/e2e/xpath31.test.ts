/**
 * XPath 3.1 through the built binary, over stdio and Streamable HTTP (both eras), driven by the
 * SDK client: each kind of analytic expression answered, the 1.0 answers untouched, and hostile
 * 3.1 expressions stopped with the process under 1.5 GB while it keeps answering.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processMemory } from '../../scripts/lib/process-memory.js';
import { type RunningServer, startServer } from '../support/http-server.js';
import { answerOf } from '../support/in-memory-server.js';
import { CLI } from './binary.js';

type Result = Awaited<ReturnType<Client['callTool']>>;
const text = (result: Result) => (result.content as Array<{ text: string }>)[0]?.text;

const catalog = `<catalog>${Array.from(
  { length: 40 },
  (_, i) =>
    `<book id="b${i}" genre="${['fiction', 'history', 'science'][i % 3]}" added="2024-${String((i % 12) + 1).padStart(2, '0')}-15"><title>Book ${i}</title><price>${(5 + ((i * 7) % 50)).toFixed(2)}</price></book>`,
).join('')}</catalog>`;

/** Each expression kind of issue 22, with the answer worked out here from the data above. */
async function answersAnalyticQuestions(client: Client): Promise<void> {
  const ask = (xpath: string) => client.callTool({ name: 'xml_query', arguments: { xml: catalog, xpath } });
  const prices = Array.from({ length: 40 }, (_, i) => 5 + ((i * 7) % 50));
  const sum = await ask('sum(//book ! number(price))');
  expect(sum.structuredContent).toMatchObject({
    type: 'number',
    values: [String(prices.reduce((a, b) => a + b, 0))],
    xpath_version: '3.1',
  });
  expect(text(sum)).toMatch(/\n\(evaluated as XPath 3\.1\)$/);
  const doubled = await ask('sum(//book ! (price * 2))');
  expect(doubled.structuredContent).toMatchObject({
    values: [String(2 * prices.reduce((a, b) => a + b, 0))],
  });
  const genres = await ask(
    "for $g in distinct-values(//@genre) return $g || ' ' || count(//book[@genre = $g])",
  );
  expect((genres.structuredContent as { values: string[] }).values).toEqual([
    'fiction 14',
    'history 13',
    'science 13',
  ]);
  const top = [...prices.keys()]
    .sort((a, b) => (prices[b] as number) - (prices[a] as number) || a - b)
    .slice(0, 3);
  const ranked = await ask(
    '(for $b in //book order by number($b/price) descending return string($b/@id))[position() le 3]',
  );
  expect((ranked.structuredContent as { values: string[] }).values).toEqual(top.map((i) => `b${i}`));
  // The genre named most: a predicate reading no focus (evaluated once), index-of, a distinct count.
  const most = await ask(
    "let $g := //book/@genre ! string(.), $d := distinct-values($g), $c := $d ! count(index-of($g, .)) return $d[index-of($c, max($c))[1]] || ' of ' || count(distinct-values(//@genre))",
  );
  expect((most.structuredContent as { values: string[] }).values).toEqual(['fiction of 3']);
  const average = await ask("format-number(avg(//book/price), '#,##0.00')");
  expect(text(average)).toBe(
    `${(prices.reduce((a, b) => a + b, 0) / prices.length).toFixed(2)}\n(evaluated as XPath 3.1)`,
  );
  const days = await ask("days-from-duration(xs:date('2024-03-15') - xs:date(//book[1]/@added))");
  expect(text(days)).toBe('60\n(evaluated as XPath 3.1)');
  const regex = await ask("count(//title[matches(., '^Book [0-9]$')])");
  expect(text(regex)).toBe('10\n(evaluated as XPath 3.1)');
  const old = await ask('count(//book[price > 50])');
  const expensive = String(prices.filter((price) => price > 50).length);
  expect(answerOf(old.structuredContent)).toEqual({ type: 'number', count: 1, values: [expensive] });
  expect(text(old)).toBe(expensive);
}

describe('XPath 3.1 through the built binary', () => {
  it('over stdio', async () => {
    const client = new Client({ name: 'e2e-xpath31', version: '1' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI], stderr: 'pipe' }),
    );
    await answersAnalyticQuestions(client);
    await client.close();
  });

  describe('over Streamable HTTP', () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer('streamable-http', ['--timeout-ms', '3000']);
    });
    afterAll(async () => {
      expect(await server.stop()).toBe(0);
    });

    it.each([
      ['2025-11-25 session', {}],
      ['2026-07-28 stateless', { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
    ] as const)('answers every expression kind (%s)', async (_era, options) => {
      const client = new Client(
        { name: 'e2e-xpath31', version: '1' },
        options as ConstructorParameters<typeof Client>[1],
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      await answersAnalyticQuestions(client);
      await client.close();
    });

    it('stops hostile XPath 3.1, answers a ping meanwhile, and stays under 1.5 GB', async () => {
      const client = new Client({ name: 'e2e-xpath31-hostile', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      for (const xpath of [
        "string-join((1 to 50000000) ! 'x')",
        "count((1 to 5000000) ! map { 'k': . })",
        '(1 to 10000000000)[last()]',
      ]) {
        const running = client.callTool({ name: 'xml_query', arguments: { xml: '<r/>', xpath } });
        await client.ping();
        const result = await running;
        expect(result.isError).toBe(true);
        expect(text(result)).toMatch(/ran past its time budget|ran out of its memory budget/);
      }
      expect(processMemory(server.child.pid as number).hwmKb).toBeLessThan(1.5 * 1024 * 1024);
      await client.close();
    });
  });
});
