import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { validate } from '../../../src/engine/validate/validate.js';
import { saxonFindings } from '../../support/saxon.js';
import { service } from '../../support/services.js';

/*
 * The EN 16931 rules for UBL (test/fixtures/en16931, EUPL 1.2) checked against their official
 * XSLT build run by Saxon-HE: on every example invoice and on invoices broken on purpose, the
 * failed asserts this server finds, id by id and counted, are the ones Saxon reports.
 */

const FIXTURES = 'test/fixtures/en16931';
const SCHEMA = readFileSync(join(FIXTURES, 'EN16931-UBL-validation-preprocessed.sch'), 'utf8');
const EXAMPLES = Object.fromEntries(
  readdirSync(join(FIXTURES, 'examples')).map((file) => [
    file.replace(/\.xml$/i, ''),
    readFileSync(join(FIXTURES, 'examples', file), 'utf8'),
  ]),
);
const EXAMPLE1 = EXAMPLES['ubl-tc434-example1'] as string;

/** Example 1 with one thing wrong, each a mistake a real invoice makes. */
const BROKEN: Record<string, string> = {
  'wrong-payable-total': EXAMPLE1.replace(
    '<cbc:PayableAmount currencyID="EUR">250.33</cbc:PayableAmount>',
    '<cbc:PayableAmount currencyID="EUR">250.34</cbc:PayableAmount>',
  ),
  'wrong-tax-exclusive-total': EXAMPLE1.replace(
    '<cbc:TaxExclusiveAmount currencyID="EUR">229.60<',
    '<cbc:TaxExclusiveAmount currencyID="EUR">229.70<',
  ),
  'missing-buyer-country': EXAMPLE1.replace(
    /(<cac:AccountingCustomerParty>[\s\S]*?)<cac:Country>\s*<cbc:IdentificationCode>NL<\/cbc:IdentificationCode>\s*<\/cac:Country>/,
    '$1',
  ),
  'vat-category-without-rate': EXAMPLE1.replace(
    /(<cac:TaxSubtotal>[\s\S]*?<cbc:ID>S<\/cbc:ID>\s*)<cbc:Percent>6<\/cbc:Percent>/,
    '$1',
  ),
  'unknown-currency': EXAMPLE1.replace('<cbc:DocumentCurrencyCode>EUR<', '<cbc:DocumentCurrencyCode>EURO<'),
  'missing-invoice-number': EXAMPLE1.replace('<cbc:ID>12115118</cbc:ID>', ''),
  'three-decimals': EXAMPLE1.replace(
    '<cbc:LineExtensionAmount currencyID="EUR">229.60<',
    '<cbc:LineExtensionAmount currencyID="EUR">229.600<',
  ),
  'bad-invoice-type': EXAMPLE1.replace('<cbc:InvoiceTypeCode>380<', '<cbc:InvoiceTypeCode>999<'),
  'no-lines': EXAMPLE1.replace(/<cac:InvoiceLine>[\s\S]*<\/cac:InvoiceLine>/, ''),
};

const saxon = service('saxon');

function ours(xml: string): Record<string, number> {
  return validate(xml, SCHEMA).schematron?.by_id ?? {};
}

describe('EN 16931 UBL rules', () => {
  it('breaks each variant (the fixtures change what they say they change)', () => {
    for (const [name, xml] of Object.entries(BROKEN)) expect(xml, name).not.toBe(EXAMPLE1);
    expect(ours(EXAMPLE1)).toEqual({});
    expect(ours(BROKEN['missing-buyer-country'] as string)).toHaveProperty('BR-11', 1);
    expect(ours(BROKEN['wrong-payable-total'] as string)).toHaveProperty('BR-CO-16', 1);
  });

  describe.skipIf(!saxon.path)(`against the official XSLT on Saxon-HE${saxon.skipped}`, () => {
    let official: Record<string, Record<string, number>> = {};
    beforeAll(() => {
      official = saxonFindings(saxon.path as string, join(FIXTURES, 'EN16931-UBL-validation.xslt'), {
        ...EXAMPLES,
        ...BROKEN,
      });
    });

    it.each(Object.keys(EXAMPLES))('finds what Saxon finds in the example %s', (name) => {
      expect(ours(EXAMPLES[name] as string)).toEqual(official[name]);
    });

    it.each(Object.keys(BROKEN))('finds what Saxon finds in the broken invoice %s', (name) => {
      expect(Object.keys(official[name] ?? {}).length).toBeGreaterThan(0);
      expect(ours(BROKEN[name] as string)).toEqual(official[name]);
    });
  });
});
