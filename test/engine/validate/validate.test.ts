import { describe, expect, it } from 'vitest';
import { validate } from '../../../src/engine/validate/validate.js';
import {
  MAX_LISTED_VIOLATIONS,
  MAX_VIOLATION_TEXT_CHARS,
  VIOLATION_OUTPUT_CHARS,
} from '../../../src/limits.js';
import { ORDER_SCHEMA } from '../../support/order-schema.js';
import { engineError } from '../engine-error.js';

const schema = ORDER_SCHEMA;

const schemaError = (xsd: string) => engineError(() => validate('<order/>', xsd));
const order = (...prices: string[]) =>
  `<order>\n${prices.map((price) => `<item><price>${price}</price></item>\n`).join('')}</order>`;

describe('validate', () => {
  it('accepts a conforming document', () => {
    expect(validate('<order><item><price>1.5</price></item></order>', schema)).toEqual({
      valid: true,
      total: 0,
      violations: [],
    });
  });

  it('lists every violation with element path and line', () => {
    const result = validate(
      '<order>\n<item><price>1</price></item>\n<item><price>x</price></item>\n<item><price>y</price></item>\n</order>',
      schema,
    );
    expect(result.valid).toBe(false);
    expect(result.violations).toHaveLength(2);
    expect(result.violations[0]).toMatchObject({ path: '/order/item[2]/price', line: 3 });
    expect(result.violations[1]).toMatchObject({ path: '/order/item[3]/price', line: 4 });
    expect(result.violations[0]?.message).toContain('xs:decimal');
  });

  it('counts every violation but lists only the first ones, in document order', () => {
    const result = validate(order(...Array.from({ length: 1_000 }, () => 'x')), schema);
    expect(result).toMatchObject({ valid: false, total: 1_000, truncated: true });
    expect(result.violations).toHaveLength(MAX_LISTED_VIOLATIONS);
    expect(result.violations[0]).toMatchObject({ path: '/order/item[1]/price', line: 2 });
    expect(result.violations.at(-1)).toMatchObject({ path: '/order/item[100]/price', line: 101 });
  });

  it('lists everything, without truncated, when the violations fit', () => {
    const result = validate(order('x', '1', 'y'), schema);
    expect(result.total).toBe(2);
    expect(result.violations).toHaveLength(2);
    expect(result).not.toHaveProperty('truncated');
  });

  it('cuts a message that quotes a huge value, so one violation cannot fill the answer', () => {
    const result = validate(order('x'.repeat(100_000), 'y'), schema);
    expect(result).toMatchObject({ total: 2, truncated: true });
    const [huge, small] = result.violations;
    expect(huge?.message).toHaveLength(MAX_VIOLATION_TEXT_CHARS);
    expect(huge?.message.endsWith('…')).toBe(true);
    expect(small?.message).toContain("'y'");
  });

  it('stops listing at the character budget, and counts the rest', () => {
    const result = validate(order(...Array.from({ length: 60 }, () => 'x'.repeat(900))), schema);
    expect(result).toMatchObject({ total: 60, truncated: true });
    const chars = result.violations.reduce((sum, v) => sum + v.message.length + (v.path?.length ?? 0), 0);
    expect(chars).toBeLessThanOrEqual(VIOLATION_OUTPUT_CHARS);
    expect(result.violations.length).toBeGreaterThanOrEqual(
      VIOLATION_OUTPUT_CHARS / (2 * MAX_VIOLATION_TEXT_CHARS),
    );
    expect(result.violations.length).toBeLessThan(60);
  });

  it('says a pattern backtracked past the limit, and which pattern, instead of "internal error"', () => {
    const patterned = (...patterns: string[]) => `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
      <xs:element name="r"><xs:complexType><xs:sequence>
        ${patterns.map((pattern, i) => `<xs:element name="v${i}"><xs:simpleType><xs:restriction base="xs:string"><xs:pattern value="${pattern}"/></xs:restriction></xs:simpleType></xs:element>`).join('')}
      </xs:sequence></xs:complexType></xs:element></xs:schema>`;
    const value = `${'a'.repeat(40)}c`;
    const error = engineError(() => validate(`<r>\n<v0>${value}</v0></r>`, patterned('(a|aa)*b')));
    expect(error.code).toBe('limit-exceeded');
    expect(error.message).toMatch(/^The pattern `\(a\|aa\)\*b` in the `xsd` argument backtracked past/);
    expect(error.message).toContain('(line 2, /r/v0)');
    expect(error.message).not.toMatch(/internal error/i);
    const two = engineError(() => validate(`<r><v0>${value}</v0><v1>x</v1></r>`, patterned('(a|aa)*b', 'x')));
    expect(two.message).toMatch(/^One of the patterns `\(a\|aa\)\*b`, `x` in the `xsd` argument/);
  });

  it('refuses xs:include and located xs:import without fetching', () => {
    const error = schemaError(
      '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:include schemaLocation="file:///etc/passwd"/></xs:schema>',
    );
    expect(error.code).toBe('invalid-schema');
    expect(error.message).toContain('file:///etc/passwd');
    expect(error.message).toContain('nothing is ever fetched');
  });

  it('reports a broken schema as such', () => {
    const error = schemaError(
      '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a" type="nope"/></xs:schema>',
    );
    expect(error.code).toBe('invalid-schema');
    expect(error.message).toContain('nope');
  });

  it('reports a malformed schema document with the xsd argument named', () => {
    const error = schemaError('<xs:schema');
    expect(error.code).toBe('not-well-formed');
    expect(error.message).toContain('`xsd`');
  });
});
