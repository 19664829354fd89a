import { describe, expect, it } from 'vitest';
import { validate } from '../../../src/engine/validate/validate.js';
import { MAX_SCHEMA_CHAIN } from '../../../src/limits.js';
import {
  CHAIN_KINDS,
  chainedSchema,
  cycleCutChainSchema,
  nestedChainSchema,
} from '../../support/schema-chains.js';
import { engineError } from '../engine-error.js';

const XS = 'http://www.w3.org/2001/XMLSchema';

describe('schema definition chains', () => {
  it.each(CHAIN_KINDS)('refuses a %s chain of 6,000 links before compiling it, naming the limit', (kind) => {
    const error = engineError(() => validate('<r>x</r>', chainedSchema(kind, 6000)));
    expect(error.code).toBe('limit-exceeded');
    expect(error.message).toContain('`xsd`');
    // The group kinds' chain starts at the root element `r`, which refers to d6000.
    expect(error.message).toMatch(/chains its definitions 600[12] links deep \(from `(r|d6000)` to `d0`/);
    expect(error.message).toContain(`the limit is ${MAX_SCHEMA_CHAIN}`);
  });

  it.each(CHAIN_KINDS)('compiles a %s chain at the limit and validates with it', (kind) => {
    // d0 … d498 and, for the reference kinds, `r` itself: at most 500 definitions.
    expect(validate('<r>x</r>', chainedSchema(kind, MAX_SCHEMA_CHAIN - 2))).toMatchObject({
      valid: true,
      violations: [],
    });
  });

  it('counts a chain however its prefixes are spelled', () => {
    const links = Array.from({ length: 600 }, (_, i) => {
      const prefix = i % 2 === 0 ? 'a' : 'b';
      return `<xs:simpleType name="t${i + 1}"><xs:restriction base="${prefix}:t${i}"/></xs:simpleType>`;
    }).reverse();
    const xsd = `<xs:schema xmlns:xs="${XS}" xmlns:a="urn:t" xmlns:b="urn:t" targetNamespace="urn:t"><xs:element name="r" type="a:t600"/>${links.join('')}<xs:simpleType name="t0"><xs:restriction base="xs:string"/></xs:simpleType></xs:schema>`;
    expect(engineError(() => validate('<r xmlns="urn:t">x</r>', xsd)).code).toBe('limit-exceeded');
  });

  it('ends its walk on a circular definition and leaves it to libxml2, which reports it', () => {
    const cycle = Array.from(
      { length: 10 },
      (_, i) =>
        `<xs:group name="g${i}"><xs:sequence><xs:group ref="g${(i + 1) % 10}"/></xs:sequence></xs:group>`,
    ).join('');
    const xsd = `<xs:schema xmlns:xs="${XS}"><xs:element name="r"><xs:complexType><xs:group ref="g0"/></xs:complexType></xs:element>${cycle}</xs:schema>`;
    const error = engineError(() => validate('<r/>', xsd));
    expect(error.code).toBe('invalid-schema');
    expect(error.message).toMatch(/circular/i);
  });

  it('does not count many short chains as one long one', () => {
    const types = Array.from(
      { length: 3000 },
      (_, i) =>
        `<xs:simpleType name="t${i}"><xs:restriction base="${i % 3 === 0 ? 'xs:string' : `t${i - 1}`}"/></xs:simpleType>`,
    ).join('');
    const xsd = `<xs:schema xmlns:xs="${XS}"><xs:element name="r" type="t2999"/>${types}</xs:schema>`;
    expect(validate('<r>x</r>', xsd).valid).toBe(true);
  });

  it('counts anonymous types nested inside a definition as links of the chain', () => {
    // 100 named types of 100 nested levels: few definitions, a chain 10,000 deep.
    const error = engineError(() => validate('<r>x</r>', nestedChainSchema(100, 100)));
    expect(error.code).toBe('limit-exceeded');
    expect(validate('<r>x</r>', nestedChainSchema(20, 20)).valid).toBe(true);
  });

  it('counts a chain whole when legal cycles through nested content cut it into segments', () => {
    expect(engineError(() => validate('<r/>', cycleCutChainSchema(20, 400))).code).toBe('limit-exceeded');
  });
});
