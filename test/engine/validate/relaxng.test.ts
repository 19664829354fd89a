import { describe, expect, it } from 'vitest';
import { validate } from '../../../src/engine/validate/validate.js';
import { BOOK_RELAX_NG, INVALID_BOOK, NOTE_RELAX_NG, VALID_BOOK } from '../../support/book-schemas.js';
import { engineError } from '../engine-error.js';

const RNG = 'http://relaxng.org/ns/structure/1.0';

describe('validate against RELAX NG', () => {
  it('accepts a document that a grammar of define and ref allows, and names the language', () => {
    expect(validate(VALID_BOOK, BOOK_RELAX_NG)).toEqual({
      valid: true,
      total: 0,
      violations: [],
      language: 'relaxng',
    });
  });

  it('lists each violation of a grammar with its path and line', () => {
    const result = validate(INVALID_BOOK, BOOK_RELAX_NG);
    expect(result).toMatchObject({ valid: false, total: 2, language: 'relaxng' });
    expect(result.violations).toEqual([
      { message: 'Did not expect element para there', path: '/book/chapter[1]/para', line: 3 },
      { message: 'Did not expect element figure there', path: '/book/chapter[2]/figure', line: 4 },
    ]);
  });

  it('checks datatypes and attributes', () => {
    const result = validate(
      '<book>\n<title>t</title><chapter pages="-2"><title>c</title></chapter></book>',
      BOOK_RELAX_NG,
    );
    expect(result.valid).toBe(false);
    expect(result.violations[0]).toMatchObject({ path: '/book', line: 1 });
    expect(result.violations.map((violation) => violation.message).join(' ')).toMatch(/attribute/);
  });

  it('takes a single element pattern as the whole schema', () => {
    expect(validate('<note><to>A</to><body>b</body></note>', NOTE_RELAX_NG)).toMatchObject({ valid: true });
    const result = validate('<note>\n<body>b</body>\n<to>A</to></note>', NOTE_RELAX_NG);
    expect(result).toMatchObject({ valid: false, language: 'relaxng' });
    expect(result.violations[0]).toMatchObject({ path: '/note/body', line: 2 });
  });

  it('counts every violation and lists the first 100, as for XSD', () => {
    const grammar = `<element name="r" xmlns="${RNG}"><zeroOrMore><element name="a"><empty/></element></zeroOrMore></element>`;
    const result = validate(`<r>${'<b/>'.repeat(300)}</r>`, grammar);
    expect(result.valid).toBe(false);
    expect(result.total).toBeGreaterThanOrEqual(1);
    expect(result.violations.length).toBeLessThanOrEqual(100);
  });

  it('refuses include and externalRef with the fix, fetching nothing', () => {
    for (const part of [
      '<include href="file:///etc/passwd"/>',
      '<start><externalRef href="http://example.com/x.rng"/></start>',
    ]) {
      const error = engineError(() => validate('<r/>', `<grammar xmlns="${RNG}">${part}</grammar>`));
      expect(error.code).toBe('invalid-schema');
      expect(error.message).toMatch(
        /refers to another grammar \(`(file:\/\/\/etc\/passwd|http:\/\/example\.com\/x\.rng)`\) through RELAX NG include\/externalRef; nothing is ever fetched/,
      );
    }
  });

  it('reports a broken grammar with the reason libxml2 gives', () => {
    const error = engineError(() =>
      validate('<r/>', `<grammar xmlns="${RNG}"><start><ref name="nowhere"/></start></grammar>`),
    );
    expect(error.code).toBe('invalid-schema');
    expect(error.message).toMatch(/^The `xsd` argument is not a usable RELAX NG schema: .*nowhere/);
  });

  it('names the compact syntax instead of calling it malformed XML', () => {
    const error = engineError(() => validate('<r/>', 'element r { text }'));
    expect(error.code).toBe('invalid-schema');
    expect(error.message).toMatch(/RELAX NG compact syntax.*trang/);
  });
});
