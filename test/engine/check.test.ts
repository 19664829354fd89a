import { describe, expect, it } from 'vitest';
import { check } from '../../src/engine/check.js';
import { MAX_DOCUMENT_BYTES, MAX_ENTITY_NESTING } from '../../src/limits.js';
import { engineError } from './engine-error.js';

const rejection = (xml: string | Uint8Array) => engineError(() => check(xml));

describe('check', () => {
  it('counts elements and nodes of a well-formed document', () => {
    expect(check('<r><t a="1">x</t><!--c--></r>')).toEqual({ wellFormed: true, elements: 2, nodes: 5 });
  });

  it('reports line and column of a malformed document', () => {
    const error = rejection('<r>\n  <t></r>');
    expect(error.code).toBe('not-well-formed');
    expect(error.line).toBe(2);
    expect(error.column).toBeGreaterThan(0);
    expect(error.message).toContain('mismatch');
  });

  it('shows the text where the parse stopped, and how to write a bare & or <', () => {
    const ampersand = rejection('<atolls>\n  <name>Bikini & Kili</name>\n</atolls>');
    expect(ampersand.line).toBe(2);
    expect(ampersand.message).toContain('near "  <name>Bikini & Kili</name>"');
    expect(ampersand.message).toContain('a literal ampersand is written `&amp;`');
    expect(rejection('<r>a < b</r>').message).toContain('a literal less-than sign is written `&lt;`');
    expect(rejection('<p>&nbsp;</p>').message).toContain('`&#160;` for `&nbsp;`');
    expect(rejection('<a/><b/>').message).toContain('exactly one root');
    expect(rejection('{"a": 1}').message).toContain('near "{\\"a\\": 1}"');
    // libxml2's own words suffice for a mismatch: the text is shown, no advice added.
    expect(rejection('<r><a></r>').message).toMatch(/mismatch: a line 1 and r, near "<r><a><\/r>"\.$/);
  });

  it('counts columns in characters and shows a window of a long line, not the line', () => {
    const accented = rejection('<r>é é ü Enewetak & Ujelang</r>').message;
    expect(accented).toContain('near "<r>é é ü Enewetak & Ujelang</r>"');
    const minified = rejection(`<r>${'é'.repeat(100_000)} & y${'z'.repeat(100_000)}</r>`).message;
    expect(minified).toContain(`near …"${'é'.repeat(28)} & y${'z'.repeat(28)}"…`);
    expect(minified.length).toBeLessThan(400);
  });

  it('says an empty document is empty', () => {
    expect(rejection('').message).toMatch(/line 1, column 1: Document is empty/);
  });

  it('rejects billion laughs with the amplification limit', () => {
    const levels = ['<!ENTITY a0 "lol">'];
    for (let i = 1; i < 12; i++) levels.push(`<!ENTITY a${i} "${`&a${i - 1};`.repeat(10)}">`);
    expect(rejection(`<!DOCTYPE r [${levels.join('')}]><r>&a11;</r>`).message).toMatch(/amplification/i);
  });

  it('rejects nesting deeper than 256 without overflowing any stack', () => {
    const deep = `${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}`;
    expect(rejection(deep).message).toMatch(/depth/i);
  });

  it('reports an entity reference loop as not well-formed, not as amplification', () => {
    const error = rejection('<!DOCTYPE r [<!ENTITY a "&b;"><!ENTITY b "&a;">]><r>&a;</r>');
    expect(error.code).toBe('not-well-formed');
    expect(error.message).toMatch(/loop/);
  });

  it('reads entities nested up to the limit, and names the limit past it instead of "not well-formed"', () => {
    const nested = (count: number) => {
      const declarations = ['<!ENTITY e1 "x">'];
      for (let i = 2; i <= count; i++) declarations.push(`<!ENTITY e${i} "&e${i - 1};">`);
      return `<!DOCTYPE r [${declarations.join('')}]><r>&e${count};</r>`;
    };
    expect(check(nested(MAX_ENTITY_NESTING)).wellFormed).toBe(true);
    const error = rejection(nested(MAX_ENTITY_NESTING + 1));
    expect(error.code).toBe('limit-exceeded');
    expect(error.message).toContain(`deeper than the limit of ${MAX_ENTITY_NESTING}`);
    expect(error.message).not.toContain('not well-formed');
  });

  it('rejects a document over 8 MiB of UTF-8, counted in bytes', () => {
    const text = `<r>${'é'.repeat(MAX_DOCUMENT_BYTES / 2)}</r>`;
    const error = rejection(text);
    expect(error.code).toBe('too-large');
    expect(error.message).toContain('8 MiB');
  });

  it('accepts a document of exactly 8 MiB', () => {
    const filler = 'x'.repeat(MAX_DOCUMENT_BYTES - '<r></r>'.length);
    expect(check(`<r>${filler}</r>`).elements).toBe(1);
  });
});
