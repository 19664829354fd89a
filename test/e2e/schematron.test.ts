import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerOf, textOf as text } from '../support/in-memory-server.js';
import { ORDER, ORDER_SCHEMATRON } from '../support/order-schematron.js';
import { CLI } from './binary.js';

/*
 * Schematron through the built bundle over stdio (ADR 0053): fontoxpath's patched cache and the
 * rules' evaluation as the package ships them, a held schema run twice.
 */

let client: Client;
beforeAll(async () => {
  client = new Client({ name: 'e2e-schematron', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI], stderr: 'pipe' }));
});
afterAll(async () => {
  await client?.close();
});

const call = (args: Record<string, unknown>) => client.callTool({ name: 'xml_validate', arguments: args });

describe('the built binary validates with ISO Schematron', () => {
  it('answers the same findings from a schema sent and from its handle', async () => {
    const first = await call({ xml: ORDER, xsd: ORDER_SCHEMATRON });
    expect(first.isError).toBe(true);
    expect(answerOf(first.structuredContent)).toMatchObject({
      total: 3,
      language: 'schematron',
      schematron: { by_id: { QTY: 2, PRICE: 1 } },
    });
    const schema = (first.structuredContent as { schema: string }).schema;
    const again = await call({ xml: ORDER, schema });
    expect(text(again)).toBe(text(first));
  });

  it('finds BR-11 in an EN 16931 invoice without its buyer country', async () => {
    const rules = readFileSync('test/fixtures/en16931/EN16931-UBL-validation-preprocessed.sch', 'utf8');
    const invoice = readFileSync('test/fixtures/en16931/examples/ubl-tc434-example1.xml', 'utf8');
    const countryless = invoice.replace(
      /(<cac:AccountingCustomerParty>[\s\S]*?)<cac:Country>\s*<cbc:IdentificationCode>NL<\/cbc:IdentificationCode>\s*<\/cac:Country>/,
      '$1',
    );
    const result = await call({ xml: countryless, xsd: rules });
    expect(answerOf(result.structuredContent)).toMatchObject({
      total: 1,
      schematron: { by_id: { 'BR-11': 1 }, by_flag: { fatal: 1 } },
    });
    expect(text(await call({ xml: invoice, xsd: rules }))).toMatch(
      /^Valid: the document conforms to the Schematron schema\./,
    );
  });
});
