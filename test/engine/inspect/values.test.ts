import { describe, expect, it } from 'vitest';
import { FIELDS_PER_LINE } from '../../../src/engine/inspect/fields.js';
import { inspect } from '../../../src/engine/inspect/inspect.js';
import { documentShape } from '../../../src/engine/inspect/shape.js';
import { accessorFields } from '../../../src/engine/libxml2/tree.js';
import { withDocument } from '../../../src/engine/parse.js';
import { MAX_PROFILE_VALUES } from '../../../src/limits.js';
import { manyAttributes } from '../../support/shape-documents.js';

const records = (n: number, record: (i: number) => string) =>
  `<r>${Array.from({ length: n }, (_, i) => record(i)).join('')}</r>`;

describe('inspect shows what the fields hold', () => {
  it('lists few distinct values with their counts, most frequent first', () => {
    const types = ['L', 'L', 'E', 'L', 'E', 'A'];
    const result = inspect(records(types.length, (i) => `<e type="${types[i]}"><dir>IN</dir></e>`));
    expect(result.values['/r/e/@type']).toBe('L×3 E×2 A×1');
    expect(result.values['/r/e/dir']).toBe('IN×6');
    expect(result.outlineValues[result.outline.indexOf('/r/e ×6: @type; dir')]).toEqual([
      '@type: L×3 E×2 A×1',
      'dir: IN×6',
    ]);
  });

  it('gives a field of many numbers its range as written, and says whether they are integers', () => {
    const result = inspect(
      records(
        30,
        (i) => `<item qty="${i * 3}"><price>${i === 7 ? '0.50' : (i * 2.25 + 1).toFixed(2)}</price></item>`,
      ),
    );
    expect(result.values['/r/item/@qty']).toBe('integers 0–87, 30 distinct of 30');
    expect(result.values['/r/item/price']).toBe('numbers 0.50–66.25, 30 distinct of 30');
  });

  it('gives dates their range and a field of many values its distinct count and two examples, estimated past the cap', () => {
    const result = inspect(
      records(5_000, (i) => `<rec id="k${i}"><on>20${10 + (i % 15)}-0${1 + (i % 9)}-1${i % 10}</on></rec>`),
    );
    const id = result.values['/r/rec/@id'] as string;
    const estimate = Number(/^≈(\d+) distinct of 5000, e\.g\. k0, k1$/.exec(id)?.[1]);
    expect(estimate).toBeGreaterThan(4_500);
    expect(estimate).toBeLessThanOrEqual(5_000);
    // 90 distinct dates: past the 32 kept, still counted exactly by their hashes.
    expect(result.values['/r/rec/on']).toBe('dates 2010-01-10 to 2024-09-19, 90 distinct of 5000');
  });

  it('lists every value kept, most frequent first, when there are more than eight but not past the cap', () => {
    const result = inspect(records(20, (i) => `<t>w${i % 10}</t>`));
    expect(result.values['/r/t']).toBe(
      '10 distinct of 20: w0×2 w1×2 w2×2 w3×2 w4×2 w5×2 w6×2 w7×2 …+2 more (4 occurrences)',
    );
  });

  it('shows values exactly: quoted where white space or emptiness matters, elements without text counted empty', () => {
    const result = inspect('<r><s>test</s><s> test </s><s/><s>test</s></r>');
    expect(result.values['/r/s']).toBe(
      'test×2 " test "×1 ""×1; 1 with white space at an edge; test/" test " differ only in edge white space',
    );
    expect(inspect('<r><e a=""/><e a="x y"/></r>').values['/r/e/@a']).toBe('2 distinct: "" "x y"');
  });

  it('cuts a long value with the cut mark after its closing quote, and says how many hold markup', () => {
    const html = (i: number) => `<![CDATA[<p>Item ${i} is <b>bold</b> and described at length here</p>]]>`;
    const result = inspect(records(100, (i) => `<description>${html(i)}</description>`));
    expect(result.values['/r/description']).toMatch(
      /^100 distinct of 100, e\.g\. "<p>Item 0 is <b>bold<\/b> and described a"…\[cut\], "<p>Item 1 is <b>bold<\/b> and described a"…\[cut\]; 100 holding markup$/,
    );
  });

  it('gives no text values to a path that holds elements, nor to leaves that never hold text', () => {
    const result = inspect('<r><p>a <b>b</b></p><p>plain</p><br/><br/></r>');
    expect(Object.keys(result.values)).toEqual(['/r/p/b']);
  });

  it("reads the values of a path's first FIELDS_PER_LINE attributes only, counting every one (issue 33 F8)", () => {
    // 699,045 attributes on one element took 6–10 s: a profile and a read for each, to show 64.
    const xml = manyAttributes(5_000);
    withDocument(xml, 'query', (doc) => {
      const e = documentShape(doc).root?.children?.values().next().value;
      expect(e?.attributes?.size).toBe(5_000);
      expect(e?.attributeValues?.size).toBe(FIELDS_PER_LINE);
      expect([...(e?.attributeValues?.keys() ?? [])]).toEqual(
        [...(e?.attributes?.keys() ?? [])].slice(0, 64),
      );
    });
    const result = inspect(xml, { maxChars: 200_000 });
    expect(result.values['/r/e/@a0']).toBe('0');
    expect(result.values['/r/e/@a63']).toBe('63');
    expect(result.values['/r/e/@a64']).toBeUndefined();
    expect(result.outline.find((line) => line.startsWith('/r/e'))).toMatch(/@a4999|more attributes/);
  });

  it('keeps at most the capped distinct values per field, and reads the same through the accessors as through the memory', () => {
    const xml = records(2_000, (i) => `<v n="${i}">${i % 3}</v>`);
    withDocument(xml, 'query', (doc) => {
      const fromMemory = documentShape(doc);
      const fromAccessors = documentShape(doc, accessorFields);
      const path = fromMemory.root?.children?.values().next().value;
      const same = fromAccessors.root?.children?.values().next().value;
      const n = path?.attributeValues?.values().next().value;
      expect(n?.kept.size).toBe(MAX_PROFILE_VALUES);
      expect(n?.count).toBe(2_000);
      expect(path?.textValues?.kept.size).toBe(3);
      expect([...(same?.textValues?.kept.values() ?? [])]).toEqual([
        ...(path?.textValues?.kept.values() ?? []),
      ]);
      expect(same?.attributeValues?.values().next().value?.distinct()).toEqual(n?.distinct());
    });
  });

  it('reads no values when asked for names and counts only', () => {
    const result = inspect('<r><e a="1">x</e></r>', { values: false });
    expect(result.values).toEqual({});
    expect(result.outline).toEqual(['/r: e', '/r/e: @a; text']);
  });

  it('leaves values out, counted, when the budget runs short, keeping the outline lines', () => {
    const xml = records(50, (i) => `<e${i % 25} a="${'v'.repeat(30)}${i}"/>`);
    const result = inspect(xml, { maxChars: 2_000 });
    expect(result.omitted.values).toBeGreaterThan(0);
    expect(result.omitted.fields).toBe(25);
    expect(result.truncated).toBe(true);
    expect(result.outline.length).toBeGreaterThan(Object.keys(result.values).length);
  });
});
