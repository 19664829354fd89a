import { describe, expect, it } from 'vitest';
import { validate } from '../../src/xml/validate.js';
import { engineError } from './engine-error.js';

const schema = `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="order"><xs:complexType><xs:sequence>
    <xs:element name="item" maxOccurs="unbounded"><xs:complexType><xs:sequence>
      <xs:element name="price" type="xs:decimal"/>
    </xs:sequence></xs:complexType></xs:element>
  </xs:sequence></xs:complexType></xs:element>
</xs:schema>`;

const schemaError = (xsd: string) => engineError(() => validate('<order/>', xsd));

describe('validate', () => {
  it('accepts a conforming document', () => {
    expect(validate('<order><item><price>1.5</price></item></order>', schema)).toEqual({
      valid: true,
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
