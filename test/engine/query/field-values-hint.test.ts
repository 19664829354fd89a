import { describe, expect, it } from 'vitest';
import { explainingQueries } from '../../support/explained-query.js';

const explained = explainingQueries();

/** The shape of xkb's rules (base.xml): layouts name their languages by ISO 639-2/T code. */
const layouts = `<xkbConfigRegistry>${[
  ['de', 'deu'],
  ['us', 'eng'],
  ['gb', 'eng'],
  ['at', 'deu'],
  ['fr', 'fra'],
  ['ca', 'eng'],
]
  .map(
    ([name, lang]) =>
      `<layout><configItem><name>${name}</name><languageList><iso639Id>${lang}</iso639Id></languageList></configItem></layout>`,
  )
  .join('')}</xkbConfigRegistry>`;
const subdivisions =
  '<r><subset type="Province"/><subset type="Province"/><subset type="Region"/><subset type=" province "/></r>';

describe('an empty answer to a comparison with a value the field does not hold', () => {
  it('says what the field holds instead, most frequent first', () => {
    const result = explained(layouts, 'count(//layout[configItem/languageList/iso639Id="ger"])');
    expect(result.values).toEqual(['0']);
    expect(result.hint).toBe(
      'No `iso639Id` is "ger". What `iso639Id` holds (3 distinct of 6), most frequent first: eng×3 deu×2 fra×1.',
    );
  });

  it('finds the field through a predicate, normalize-space() and XPath 3.1 functions', () => {
    for (const xpath of [
      '//layout[.//iso639Id[normalize-space()="ger"]]',
      '//layout[normalize-space(configItem/languageList/iso639Id) = "ger"]',
      'count(//layout[.//iso639Id[lower-case(.)="ger"]])',
    ]) {
      expect(explained(layouts, xpath).hint, xpath).toContain(
        'No `iso639Id` is "ger". What `iso639Id` holds',
      );
    }
  });

  it('names the values that differ only in case or white space, as such', () => {
    const hint = explained(subdivisions, '//subset[@type="province"]').hint;
    expect(hint).toBe(
      'The document has 1 `@type` value that is "province" only with extra whitespace around or inside it, and `=` compares strings exactly, whitespace included. So write `//subset[normalize-space(@type)="province"]`. ' +
        'No `@type` is "province", but the document has Province×2: `=` compares case and white space too.',
    );
    // Where the padded-value hint cannot rewrite (an operand of two steps), both spellings here.
    expect(explained(`<s>${subdivisions}</s>`, '//r[subset/@type="province"]').hint).toBe(
      'No `@type` is "province", but the document has Province×2 " province "×1: `=` compares case and white space too.',
    );
  });

  it('says nothing when the field holds the value: the answer is empty for another reason', () => {
    expect(
      explained(layouts, 'count(//layout[configItem/name="us" and .//iso639Id="deu"])').hint,
    ).toBeUndefined();
    expect(explained(layouts, '//nothing[@x="1"]').hint).toBeUndefined();
    // A non-empty answer costs no probe and gets no sentence.
    expect(explained(layouts, 'count(//layout[.//iso639Id="eng"])').hint).toBeUndefined();
  });

  it('reads a bounded number of values and says so, and cuts long values as the outline does', () => {
    const many = `<r>${Array.from({ length: 12_000 }, (_, i) => `<v>${i % 300}</v>`).join('')}<v>${'x'.repeat(60)}</v></r>`;
    const hint = explained(many, 'count(//v[.="none"])').hint as string;
    expect(hint).toContain('(over 256 distinct of the first 10000 of 12001)');
    expect(hint).toMatch(/most frequent first: (\d+×\d+ ){10}…\+246 more\.$/);
    const long = explained(`<r><v>${'x'.repeat(60)}</v></r>`, '//v[.="y"]').hint as string;
    expect(long).toContain(`"${'x'.repeat(40)}"…[cut]×1`);
  });
});
