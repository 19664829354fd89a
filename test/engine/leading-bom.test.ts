/**
 * U+FEFF at the start of a value is a character (issue 33 F2): `TextDecoder` drops it by default,
 * so XPath 3.1 saw `\uFEFFadmin` as `admin` where XPath 1.0 did not, and markup and inspected
 * values lost it.
 */
import { describe, expect, it } from 'vitest';
import { format } from '../../src/engine/format.js';
import { inspect } from '../../src/engine/inspect/inspect.js';
import { query } from '../../src/engine/query/query.js';
import { DEFAULT_OUTPUT_CHARS, MAX_OUTPUT_VALUES } from '../../src/limits.js';

const BOM = '\uFEFF';
const doc = `<r><k id="${BOM}admin">${BOM}admin</k><k id="admin">admin</k></r>`;

describe('a value that starts with U+FEFF keeps it', () => {
  it('in XPath 1.0 and XPath 3.1 alike', () => {
    expect(query(doc, "count(//k[. = 'admin'])").values).toEqual(['1']);
    expect(query(doc, "count(//k[@id = 'admin'])").values).toEqual(['1']);
    const in31 = query(doc, "let $v := 'admin' return count(//k[. = $v])");
    expect(in31).toMatchObject({ values: ['1'], xpath_version: '3.1' });
    expect(query(doc, "let $v := 'admin' return count(//k[@id = $v])").values).toEqual(['1']);
    expect(query(doc, '//k[1] ! string(@id)').values).toEqual([`${BOM}admin`]);
  });

  it('in the values and markup of an answer', () => {
    expect(query(doc, '//k[1]/@id').values).toEqual([`${BOM}admin`]);
    expect(
      query(doc, '//k[1]/text()', {}, { maxChars: DEFAULT_OUTPUT_CHARS, maxValues: MAX_OUTPUT_VALUES }, 'xml')
        .values,
    ).toEqual([`${BOM}admin`]);
  });

  it("in what xml_inspect shows a field holds, and in xml_format's text", () => {
    const values = inspect(doc).values['/r/k/@id'] ?? '';
    // Kept, and written visibly in the quoted value (issue 33 F10).
    expect(values).toContain('\\uFEFF');
    expect(format(`${BOM}<r>${BOM}x</r>`, { indent: 0, emptyElements: 'self-closing' })).toBe(
      `<r>${BOM}x</r>`,
    );
  });
});
