import { describe, expect, it } from 'vitest';
import { isDtdText } from '../../../src/engine/validate/schema-language.js';
import { validate } from '../../../src/engine/validate/validate.js';
import { engineError } from '../engine-error.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('the schema language, told from the text', () => {
  it('reads declarations as a DTD, whatever comments, PIs and a BOM come first', () => {
    expect(isDtdText(bytes('<!ELEMENT a EMPTY>'))).toBe(true);
    expect(isDtdText(bytes('\ufeff<?xml version="1.0"?><!-- x --> <!ATTLIST a b CDATA #IMPLIED>'))).toBe(
      true,
    );
    expect(isDtdText(bytes('%common;\n<!ELEMENT a EMPTY>'))).toBe(true);
    expect(isDtdText(bytes('<![INCLUDE[<!ELEMENT a EMPTY>]]>'))).toBe(true);
  });

  it('reads a document, even one with a DOCTYPE, as a schema document', () => {
    expect(isDtdText(bytes('<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"/>'))).toBe(false);
    expect(isDtdText(bytes('<!DOCTYPE grammar><grammar/>'))).toBe(false);
    expect(isDtdText(bytes('<!-- never closed <!ELEMENT a EMPTY>'))).toBe(false);
  });

  it('refuses a root that is neither XSD nor RELAX NG, naming the three languages', () => {
    const error = engineError(() => validate('<r/>', '<schema xmlns="urn:other"/>'));
    expect(error.code).toBe('invalid-schema');
    expect(error.message).toMatch(/root element is `\{urn:other\}schema`.*XML Schema.*RELAX NG.*DTD/);
  });
});
