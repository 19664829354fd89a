import { describe, expect, it } from 'vitest';
import { check } from '../../src/engine/check.js';
import { inspect } from '../../src/engine/inspect/inspect.js';
import { query } from '../../src/engine/query/query.js';
import { visibleJson } from '../../src/engine/visible-json.js';
import { explainingQueries } from '../support/explained-query.js';
import { engineError } from './engine-error.js';

/*
 * Values quoted in sentences show their invisible characters (issue 33 F10): "admin" and
 * "ad\u200Bmin" must not read the same, nor a U+202E turn a line around. Values answered as
 * data stay exact.
 */

const explained = explainingQueries();
const RLO = '\u202E';
const ZWSP = '\u200B';

describe('invisible characters in quoted values', () => {
  it('writes bidi, zero-width and C1 characters as \\u escapes, still valid JSON', () => {
    const raw = `a${RLO}b${ZWSP}c\u0085d\uFEFFe\u2066f\u200Eg\u061Ch\u2060i\u200Dj`;
    const shown = visibleJson(raw);
    expect(shown).toBe('"a\\u202Eb\\u200Bc\\u0085d\\uFEFFe\\u2066f\\u200Eg\\u061Ch\\u2060i\\u200Dj"');
    expect(JSON.parse(shown)).toBe(raw);
    expect(visibleJson('plain é ü 😀')).toBe('"plain é ü 😀"');
  });

  it("shows them in xml_inspect's values, so values differing only by one are told apart", () => {
    const xml = `<r><k id="admin"/><k id="ad${ZWSP}min"/><k id="x${RLO}y"/></r>`;
    const values = Object.values(inspect(xml).values).join(' ');
    expect(values).toContain('"ad\\u200Bmin"');
    expect(values).toContain('"x\\u202Ey"');
    expect(values).not.toContain(ZWSP);
    expect(values).not.toContain(RLO);
  });

  it('shows them in the hint after an empty comparison, and answers the values exactly', () => {
    const xml = `<r><k id="ad${ZWSP}min"/><k id="ad${ZWSP}min"/><k id="user"/></r>`;
    const result = explained(xml, 'count(//k[@id="admin"])');
    expect(result.values).toEqual(['0']);
    expect(result.hint).toContain('"ad\\u200Bmin"');
    expect(result.hint).not.toContain(ZWSP);
    expect(query(xml, 'string(//k[1]/@id)').values).toEqual([`ad${ZWSP}min`]);
  });

  it('shows them in the text near a parse error', () => {
    const error = engineError(() => check(`<r a="x${RLO}y" b></r>`));
    expect(error.message).toContain('near "<r a=\\"x\\u202Ey\\" b></r>"');
    expect(error.message).not.toContain(RLO);
  });
});
