import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
/** structuredContent without the session's handle (ADR 0016): the answer itself. */
const answer = (result: Result) => {
  const { document: _handle, ...rest } = (result.structuredContent ?? {}) as Record<string, unknown>;
  return rest;
};

const POM = 'http://maven.apache.org/POM/4.0.0';
const pom = `<project xmlns="${POM}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="${POM} maven-4.0.0.xsd"><dependencies><dependency><artifactId>junit</artifactId></dependency><dependency><artifactId>guava</artifactId></dependency></dependencies></project>`;

describe('the built binary explains what a model cannot see', () => {
  it('an empty answer on a default namespace, then the advised query', async () => {
    const empty = await call('xml_query', { xml: pom, xpath: '//dependency/artifactId' });
    expect(answer(empty)).toEqual({ type: 'node-set', count: 0, values: [] });
    expect(text(empty)).toContain(
      `pass "namespaces": {"p":"${POM}"} and write \`//p:dependency/p:artifactId\``,
    );
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
