/**
 * xml_validate through the MCP server with an ISO Schematron schema in `xsd` (docs/behaviour.md §2,
 * docs/adr/0053-schematron-on-the-servers-own-engines.md): findings grouped by id in the text,
 * the same in structuredContent, the phase argument, the schema held by its handle.
 */
import { describe, expect, it } from 'vitest';
import { answerOf, inMemoryClient, textOf as text } from './support/in-memory-server.js';
import { ORDER, ORDER_SCHEMATRON, VALID_ORDER } from './support/order-schematron.js';

const { call, client } = inMemoryClient('tools-validate-schematron', { cacheDocuments: true });

describe('xml_validate with an ISO Schematron schema', () => {
  it('says a document passes, with the rules fired and nodes checked', async () => {
    const result = await call('xml_validate', { xml: VALID_ORDER, xsd: ORDER_SCHEMATRON });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe(
      'Valid: the document conforms to the Schematron schema. (all patterns: 2 rules fired on 1 node.)',
    );
    expect(answerOf(result.structuredContent)).toEqual({
      valid: true,
      total: 0,
      violations: [],
      language: 'schematron',
      schematron: { phase: '#ALL', rules_fired: 2, nodes_checked: 1, by_id: {}, by_flag: {} },
    });
  });

  it('groups the findings by id in the text, each with its message, test and places', async () => {
    const result = await call('xml_validate', { xml: ORDER, xsd: ORDER_SCHEMATRON });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      [
        'Invalid: 3 findings of the Schematron schema, 2 distinct; by flag or role: 2 fatal, 1 warning. (all patterns: 6 rules fired on 3 nodes.)',
        'QTY (failed assert, fatal, 2 times): Quantity must be above 0, not 0.',
        '  test: @qty > 0',
        '  at line 3, /o:order/o:item[2]',
        '  at line 4, /o:order/o:item[3]',
        'PRICE (failed assert, warning): Each o:item needs a price.',
        '  test: @price',
        '  at line 4, /o:order/o:item[3]',
        'Paths and tests write namespaced names with the prefixes "namespaces": {"o":"urn:order"}; pass the same to xml_query to select them.',
      ].join('\n'),
    );
    const answer = answerOf(result.structuredContent);
    expect(answer).toMatchObject({
      valid: false,
      total: 3,
      language: 'schematron',
      namespaces: { o: 'urn:order' },
      schematron: { phase: '#ALL', rules_fired: 6, nodes_checked: 3, by_id: { QTY: 2, PRICE: 1 } },
      notes: [
        'Paths and tests write namespaced names with the prefixes "namespaces": {"o":"urn:order"}; pass the same to xml_query to select them.',
      ],
    });
    expect(answer.violations).toEqual([
      {
        message: 'Quantity must be above 0, not 0.',
        path: '/o:order/o:item[2]',
        line: 3,
        kind: 'assert',
        id: 'QTY',
        flag: 'fatal',
        test: '@qty > 0',
      },
      {
        message: 'Quantity must be above 0, not 0.',
        path: '/o:order/o:item[3]',
        line: 4,
        kind: 'assert',
        id: 'QTY',
        flag: 'fatal',
        test: '@qty > 0',
      },
      {
        message: 'Each o:item needs a price.',
        path: '/o:order/o:item[3]',
        line: 4,
        kind: 'assert',
        id: 'PRICE',
        role: 'warning',
        test: '@price',
      },
    ]);
  });

  it('runs one phase of a schema held by its handle', async () => {
    const first = await call('xml_validate', { xml: ORDER, xsd: ORDER_SCHEMATRON });
    const schema = (first.structuredContent as { schema: string }).schema;
    const result = await call('xml_validate', { xml: ORDER, schema, phase: 'prices' });
    expect(text(result)).toMatch(
      /^Invalid: 1 finding of the Schematron schema, 1 distinct; by flag or role: 1 warning\. \(phase "prices": 3 rules fired on 3 nodes\.\)\nPRICE/,
    );
    const unknown = await call('xml_validate', { xml: ORDER, schema, phase: 'totals' });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toBe(
      'The Schematron schema has no phase "totals". Its phases: "prices"; or pass `phase`: "#ALL" to run every pattern.',
    );
  });

  it('refuses a schema that would read another document, naming what to do', async () => {
    const result = await call('xml_validate', {
      xml: ORDER,
      xsd: ORDER_SCHEMATRON.replace('test="@price"', 'test="doc(\'/etc/passwd\')"'),
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/calls `doc\(\)` in `test` at line \d+; it would read another document/);
  });

  it('lists phase among xml_validate arguments and keeps tools/list within its bound', async () => {
    const { tools } = await client().listTools();
    const validate = tools.find((tool) => tool.name === 'xml_validate');
    expect(validate?.inputSchema.properties).toHaveProperty('phase');
    expect(validate?.description).toContain('ISO Schematron');
  });
});
