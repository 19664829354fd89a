import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerOf } from '../support/in-memory-server.js';
import { CLI } from './binary.js';

/* The answers that tell a model what to do next, from the built binary over stdio. */

let client: Client;
beforeAll(async () => {
  client = new Client({ name: 'e2e-answers', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI], stderr: 'pipe' }));
});
afterAll(async () => {
  await client?.close();
});

type Result = Awaited<ReturnType<Client['callTool']>>;
const call = (name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<Result>;
const text = (result: Result) => (result.content as Array<{ text: string }>)[0]?.text ?? '';
const answer = (result: Result) => answerOf(result.structuredContent);

const POM = 'http://maven.apache.org/POM/4.0.0';
const pom = `<project xmlns="${POM}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="${POM} maven-4.0.0.xsd"><dependencies><dependency><artifactId>junit</artifactId></dependency><dependency><artifactId>guava</artifactId></dependency></dependencies></project>`;

describe('the built binary explains what a model cannot see', () => {
  it('an empty answer on a default namespace, then the advised query', async () => {
    const empty = await call('xml_query', { xml: pom, xpath: '//dependency/artifactId' });
    const advice = `pass "namespaces": {"p":"${POM}"} and write \`//p:dependency/p:artifactId\``;
    expect(answer(empty)).toMatchObject({ type: 'node-set', count: 0, values: [] });
    expect(text(empty)).toContain(advice);
    expect(answer(empty).notes).toContainEqual(expect.stringContaining(advice));
    const advised = await call('xml_query', {
      xml: pom,
      xpath: '//p:dependency/p:artifactId',
      namespaces: { p: POM },
    });
    expect(text(advised)).toBe('2 nodes matched `//p:dependency/p:artifactId`:\njunit\nguava');
  });

  it('an unbound attribute prefix, an XPath 3.1 function given many values, a path instead of a document', async () => {
    const xsi = await call('xml_query', { xml: pom, xpath: 'string(//@xsi:schemaLocation)' });
    expect(text(xsi)).toContain('"namespaces": {"xsi":"http://www.w3.org/2001/XMLSchema-instance"}');
    const lower = await call('xml_query', {
      xml: pom,
      xpath: 'lower-case(//p:artifactId[1])',
      namespaces: { p: POM },
    });
    expect(lower.isError).toBe(true);
    expect(text(lower)).toContain('XPTY0004');
    expect(text(lower)).toContain('apply it to each with `!`');
    const each = await call('xml_query', {
      xml: pom,
      xpath: '//p:dependency/p:artifactId ! upper-case(.)',
      namespaces: { p: POM },
    });
    expect(text(each)).toBe(
      '2 items in `//p:dependency/p:artifactId ! upper-case(.)`:\nJUNIT\nGUAVA\n(evaluated as XPath 3.1)',
    );
    const path = await call('xml_inspect', { xml: '/home/me/project/pom.xml' });
    expect(text(path)).toContain(
      "pass the document's text, not its path or URL; this server never opens files",
    );
  });
});

/**
 * What Claude Code, VS Code and Codex hand their model (docs/tool-design.md, "Two channels"):
 * the JSON of structuredContent when a result has it, every text block dropped; else the text.
 */
const structuredView = (result: Result) =>
  result.structuredContent
    ? JSON.stringify(result.structuredContent)
    : (result.content as Array<{ type: string; text?: string }>).map((block) => block.text ?? '').join('\n');

describe('the built binary, seen as a client that shows its model only structuredContent', () => {
  const atom = '<feed xmlns="http://www.w3.org/2005/Atom"><entry/><entry/></feed>';

  it('names the namespace and the expression to write after count(//NAME) finds nothing', async () => {
    const view = structuredView(await call('xml_query', { xml: atom, xpath: 'count(//entry)' }));
    expect(view).toContain('"values":["0"]');
    expect(view).toContain('http://www.w3.org/2005/Atom');
    expect(view).toContain('write `count(//a:entry)`');
  });

  it('says what a compared field holds, what was cut and how to get the rest, and what the handle is for', async () => {
    const rules =
      '<rules><layout><iso639Id>deu</iso639Id></layout><layout><iso639Id>eng</iso639Id></layout></rules>';
    const missed = structuredView(await call('xml_query', { xml: rules, xpath: '//layout[iso639Id="ger"]' }));
    expect(missed).toContain('No `iso639Id` is \\"ger\\"');
    expect(missed).toContain('deu×1');
    expect(missed).toMatch(/Next time pass \\"document\\": \\"d_[\w-]+\\" instead of the text/);
    const many = `<r>${'<v>1234567890</v>'.repeat(500)}</r>`;
    const cut = structuredView(await call('xml_query', { xml: many, xpath: '//v', max_chars: 1_000 }));
    expect(cut).toContain('"count":500');
    expect(cut).toMatch(/Showing \d+ of 500 values \(\d+ left out\)/);
    expect(cut).toContain('raise max_chars');
    expect(cut.length).toBeLessThan(1_000 + 600);
    const v31 = structuredView(await call('xml_query', { xml: many, xpath: 'count(distinct-values(//v))' }));
    expect(v31).toContain('"xpath_version":"3.1"');
  });

  it('gives the bindings and legend of xml_inspect, and the violations of xml_validate', async () => {
    const inspected = structuredView(await call('xml_inspect', { xml: pom }));
    expect(inspected).toContain(`Pass to xml_query as \\"namespaces\\": {\\"ns1\\":\\"${POM}\\"`);
    expect(inspected).toContain('Elements in a default namespace need a prefix in XPath too');
    expect(inspected).toContain('"legend":"outline: per distinct element path');
    const invalid = await call('xml_validate', { xml: '<r><a/></r>', xsd: '<!ELEMENT r (b)>' });
    expect(invalid.isError).toBe(true);
    expect(structuredView(invalid)).toContain('expecting (b), got (a)');
  });
});
