import { describe, expect, it } from 'vitest';
import { validate } from '../../../src/engine/validate/validate.js';
import { BOOK_DTD, INVALID_BOOK, VALID_BOOK } from '../../support/book-schemas.js';
import { engineError } from '../engine-error.js';

describe('validate against a DTD', () => {
  it('accepts a conforming document and names the language', () => {
    expect(validate(VALID_BOOK, BOOK_DTD)).toEqual({
      valid: true,
      total: 0,
      violations: [],
      language: 'dtd',
    });
  });

  it('lists each violation with its path and line', () => {
    const result = validate(INVALID_BOOK, BOOK_DTD);
    expect(result).toMatchObject({ valid: false, total: 3, language: 'dtd' });
    expect(result.violations).toEqual([
      {
        message: 'Element chapter content does not follow the DTD, expecting (title , para*), got (para)',
        path: '/book/chapter[1]',
        line: 3,
      },
      {
        message:
          'Element chapter content does not follow the DTD, expecting (title , para*), got (title figure)',
        path: '/book/chapter[2]',
        line: 4,
      },
      { message: 'No declaration for element figure', path: '/book/chapter[2]/figure', line: 4 },
    ]);
  });

  it('applies the DTD sent, never the external subset the DOCTYPE names', () => {
    const doc = `<!DOCTYPE book SYSTEM "file:///etc/passwd">\n${VALID_BOOK}`;
    expect(validate(doc, BOOK_DTD)).toMatchObject({ valid: true, language: 'dtd' });
    const missing = validate(
      '<!DOCTYPE book PUBLIC "-//X//DTD Book//EN" "http://example.com/book.dtd">\n<book/>',
      BOOK_DTD,
    );
    expect(missing.violations.map((violation) => violation.message)).toContain(
      'Element book does not carry attribute id',
    );
  });

  it('is told from a document by its declarations, after a text declaration and comments', () => {
    const dtd = `<?xml version="1.0" encoding="UTF-8"?>\n<!-- c -->\n<!ENTITY % inline "#PCDATA">\n<!ELEMENT r (%inline;)*>`;
    expect(validate('<r>x</r>', dtd)).toMatchObject({ valid: true, language: 'dtd' });
  });

  it('refuses a parameter entity that names another file, fetching nothing', () => {
    const error = engineError(() =>
      validate(
        '<r/>',
        '<!ENTITY % iso PUBLIC "ISO 8879:1986//ENTITIES Added Latin 1//EN" "file:///etc/passwd">\n%iso;\n<!ELEMENT r EMPTY>',
      ),
    );
    expect(error.code).toBe('invalid-schema');
    expect(error.message).toContain(
      'declares the parameter entity `%iso;` as another file (`file:///etc/passwd`); nothing is ever fetched',
    );
  });

  it('refuses the same declaration built from character references in another entity (issue 33 F5)', () => {
    // `%decl;` declares `%mod;` as another file: no reading of the text sees it.
    const built = `<!ENTITY % decl "&#60;!ENTITY &#37; mod SYSTEM 'module.ent'&#62;">`;
    for (const dtd of [
      `${built}\n%decl;\n%mod;\n<!ELEMENT r EMPTY>`,
      `${built}\n%decl;\n<!ELEMENT r EMPTY>`,
      `<!ENTITY % hex "&#x3C;!ENTITY &#x25; mod PUBLIC '-//X//Y' 'module.ent'&#x3E;">%hex;<!ELEMENT r EMPTY>`,
    ]) {
      const error = engineError(() => validate('<r/>', dtd));
      expect(error.code).toBe('invalid-schema');
      expect(error.message).toBe(
        "The `xsd` argument declares the parameter entity `%mod;` as another file (`module.ent`); nothing is ever fetched. Paste that file's declarations in place of the entity and its reference, and call again.",
      );
    }
    // An internal parameter entity built the same way is no other file: validated as before.
    const internal = `<!ENTITY % decl "&#60;!ELEMENT r EMPTY&#62;">%decl;`;
    expect(validate('<r/>', internal)).toMatchObject({ valid: true, language: 'dtd' });
  });

  it('refuses entity amplification in the DTD as a limit', () => {
    const lol = ['<!ENTITY % l0 "lollollollollollollollollollol">'];
    for (let i = 1; i < 12; i++) lol.push(`<!ENTITY % l${i} "${`%l${i - 1};`.repeat(10)}">`);
    const error = engineError(() => validate('<r/>', `${lol.join('\n')}\n<!ELEMENT r EMPTY>`));
    expect(error.code).toBe('limit-exceeded');
    expect(error.message).toMatch(/^The `xsd` argument is not a usable DTD: .*amplification/);
  });

  it('answers an exponential content model at once, as not deterministic', () => {
    const model = `${'('.repeat(200)}a?${',a?)*'.repeat(200)}`;
    const result = validate(`<r>${'<a/>'.repeat(40)}<b/></r>`, `<!ELEMENT r ${model}>\n<!ELEMENT a EMPTY>`);
    expect(result.valid).toBe(false);
    expect(result.violations[0]?.message).toMatch(/^Content model of r is not deterministic/);
  });

  it('reports a broken DTD with the reason', () => {
    const error = engineError(() => validate('<r/>', '<!ELEMENT r (a,>'));
    expect(error.code).toBe('invalid-schema');
    expect(error.message).toMatch(/^The `xsd` argument is not a usable DTD: /);
  });
});
