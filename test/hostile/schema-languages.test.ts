/**
 * Hostile RELAX NG grammars and DTDs (issue 26, docs/security-model.md): each answers an isError
 * or a right verdict, and the server serves every later caller exactly. libxml2's RELAX NG
 * compiler and validator recurse on the JavaScript engine's stack, not libxml2's own: a chain of
 * thousands of defines ends in a RangeError, which the worker entry never reuses a worker after
 * (docs/adr/0011-guard-libxml2s-stack.md, docs/adr/0038-relax-ng-and-dtd-in-the-xsd-argument.md).
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { EnginePool, type PoolOptions } from '../../src/engine/runtime/pool.js';
import { createServer } from '../../src/server.js';
import { BOOK_DTD, BOOK_RELAX_NG, INVALID_BOOK, VALID_BOOK } from '../support/book-schemas.js';

type Result = Awaited<ReturnType<Client['callTool']>>;
const RNG = 'http://relaxng.org/ns/structure/1.0';
const pools: EnginePool[] = [];

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

async function attack(
  options: PoolOptions,
  xml: string,
  xsd: string,
): Promise<{ answer: Result; engine: EnginePool }> {
  const engine = new EnginePool(options);
  pools.push(engine);
  const client = await connect(engine);
  const answer = await client.callTool({ name: 'xml_validate', arguments: { xml, xsd } });
  return { answer, engine };
}

async function connect(engine: EnginePool): Promise<Client> {
  const server = createServer(engine);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'hostile-schema-languages', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

const text = (result: Result) => (result.content as Array<{ text: string }>)[0]?.text ?? '';

/** A later caller, in a session of its own, gets exact answers in all three languages. */
async function expectServedExactly(engine: EnginePool): Promise<void> {
  const client = await connect(engine);
  const call = (xml: string, xsd: string) =>
    client.callTool({ name: 'xml_validate', arguments: { xml, xsd } });
  expect(text(await call(VALID_BOOK, BOOK_RELAX_NG))).toBe(
    'Valid: the document conforms to the RELAX NG schema.',
  );
  expect(text(await call(INVALID_BOOK, BOOK_RELAX_NG))).toMatch(
    /^Invalid: 2 violations of the RELAX NG schema\./,
  );
  expect(text(await call(INVALID_BOOK, BOOK_DTD))).toMatch(/^Invalid: 3 violations of the DTD\./);
  const count = await client.callTool({
    name: 'xml_query',
    arguments: { xml: '<a><b/><b/></a>', xpath: 'count(//b)' },
  });
  expect(text(count)).toBe('2');
  await client.close();
}

const grammar = (body: string) => `<grammar xmlns="${RNG}">${body}</grammar>`;

/** `links` defines, each an element (or a group) holding a ref to the next one. */
function defineChain(links: number, wrap: 'element' | 'group'): string {
  const defines = Array.from({ length: links }, (_, i) => {
    const next = i === links - 1 ? '<text/>' : `<ref name="d${i + 1}"/>`;
    const body = wrap === 'element' ? `<element name="e">${next}</element>` : `<group><text/>${next}</group>`;
    return `<define name="d${i}">${body}</define>`;
  });
  return grammar(`<start><element name="r"><ref name="d0"/></element></start>${defines.join('')}`);
}

const ENGINE_REPLACED =
  /^The XML engine (overran its stack|ran out of stack|failed on this input and was restarted)/;

describe('a hostile RELAX NG grammar', () => {
  it.each([
    ['element', 20_000],
    ['group', 20_000],
  ] as const)(
    'a chain of %s defines × %i overruns the engine stack: an isError, and the worker is never reused',
    async (wrap, links) => {
      const { answer, engine } = await attack(
        { size: 1, timeoutMs: 120_000 },
        '<r><e>x</e></r>',
        defineChain(links, wrap),
      );
      const [attacked] = engine.threadIds;
      expect(answer.isError).toBe(true);
      expect(text(answer)).toMatch(ENGINE_REPLACED);
      await expectServedExactly(engine);
      expect(engine.threadIds).not.toContain(attacked);
    },
  );

  it('a chain of 1,000 element defines is compiled and gives the right verdict', async () => {
    const xml = `<r>${'<e>'.repeat(200)}x${'</e>'.repeat(200)}</r>`;
    const { answer, engine } = await attack({ size: 1 }, xml, defineChain(1_000, 'element'));
    expect(text(answer)).toMatch(/^Invalid: \d+ violations? of the RELAX NG schema\./);
    await expectServedExactly(engine);
  });

  it('patterns nested as deep as a document may be give the right verdict', async () => {
    const nested = `${'<choice><empty/>'.repeat(250)}<text/>${'</choice>'.repeat(250)}`;
    const { answer, engine } = await attack(
      { size: 1 },
      '<r>x</r>',
      grammar(`<start><element name="r">${nested}</element></start>`),
    );
    expect(text(answer)).toBe('Valid: the document conforms to the RELAX NG schema.');
    await expectServedExactly(engine);
  });

  it('a define that refers to itself outside any element is refused by libxml2 with its reason', async () => {
    const recursive = grammar(
      '<start><ref name="a"/></start><define name="a"><choice><ref name="a"/><element name="x"><empty/></element></choice></define>',
    );
    const { answer, engine } = await attack({ size: 1 }, '<x/>', recursive);
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(/^The `xsd` argument is not a usable RELAX NG schema: .*cycle/);
    await expectServedExactly(engine);
  });

  it.each([
    [
      'a choice of 50,000 elements',
      grammar(
        `<start><element name="r"><choice>${Array.from({ length: 50_000 }, (_, i) => `<element name="e${i}"><empty/></element>`).join('')}</choice></element></start>`,
      ),
      '<r><e1/></r>',
    ],
    [
      '20 nested oneOrMore of choices',
      grammar(
        `<start><element name="r">${'<oneOrMore><choice><element name="a"><empty/></element>'.repeat(20)}<empty/>${'</choice></oneOrMore>'.repeat(20)}</element></start>`,
      ),
      `<r>${'<a/>'.repeat(5_000)}<b/></r>`,
    ],
  ])('%s runs into the time budget: an isError, and the server serves on', async (_name, xsd, xml) => {
    const { answer, engine } = await attack({ size: 1, timeoutMs: 3_000 }, xml, xsd);
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(/time budget/);
    await expectServedExactly(engine);
  });
});

describe('a hostile DTD', () => {
  it('an exponential content model is answered as not deterministic, with the right verdict', async () => {
    const model = `${'('.repeat(250)}a?${',a?)*'.repeat(250)}`;
    const { answer, engine } = await attack(
      { size: 1 },
      `<r>${'<a/>'.repeat(40)}<b/></r>`,
      `<!ELEMENT r ${model}>\n<!ELEMENT a EMPTY>`,
    );
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(
      /^Invalid: 2 violations of the DTD\.\n1\. .*Content model of r is not deterministic/,
    );
    await expectServedExactly(engine);
  });

  it('a content model nested past libxml2 depth limit is refused with the reason', async () => {
    const { answer, engine } = await attack(
      { size: 1 },
      '<r><a/></r>',
      `<!ELEMENT r ${'('.repeat(2_000)}a${')'.repeat(2_000)}>`,
    );
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(/^The `xsd` argument is not a usable DTD: .*too deep/);
    await expectServedExactly(engine);
  });

  it('a choice of 20,000 elements runs into the time budget: an isError, and the server serves on', async () => {
    const names = Array.from({ length: 20_000 }, (_, i) => `e${i}`);
    const dtd = `<!ELEMENT r (${names.join('|')})*>\n${names.map((name) => `<!ELEMENT ${name} EMPTY>`).join('\n')}`;
    const xml = `<r>${Array.from({ length: 1_000 }, (_, i) => `<e${(i * 7) % 20_000}/>`).join('')}</r>`;
    const { answer, engine } = await attack({ size: 1, timeoutMs: 3_000 }, xml, dtd);
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(/time budget/);
    await expectServedExactly(engine);
  });

  it('entities the DTD declares are never applied to the parsed document: amplification costs nothing', async () => {
    const lol = ['<!ENTITY l0 "lollollollollollollollollollol">'];
    for (let i = 1; i < 12; i++) lol.push(`<!ENTITY l${i} "${`&l${i - 1};`.repeat(10)}">`);
    lol.push('<!ELEMENT r (#PCDATA)>\n<!ATTLIST r a CDATA "&l11;">');
    const { answer, engine } = await attack({ size: 1 }, '<r/>', lol.join('\n'));
    expect(text(answer)).toBe('Valid: the document conforms to the DTD.');
    await expectServedExactly(engine);
  });
});
