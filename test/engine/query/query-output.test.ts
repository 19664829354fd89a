import { describe, expect, it } from 'vitest';
import { generateDocument } from '../../../bench/documents.js';
import { parseDocument } from '../../../src/engine/parse.js';
import { CUT_MARK, query, queryAll, queryDocument } from '../../../src/engine/query/query.js';
import { shownCost } from '../../../src/engine/shown-cost.js';
import { MAX_BATCH_XPATH_OPERATIONS, MIN_NODE_MARKUP_CHARS } from '../../../src/limits.js';

const POM = 'http://maven.apache.org/POM/4.0.0';
const pom = `<?xml version="1.0"?>
<project xmlns="${POM}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="${POM} x.xsd">
  <!-- deps -->
  <dependencies>
    <dependency>
      <artifactId>junit</artifactId>
      <scope>test</scope>
    </dependency>
    <dependency>
      <artifactId>guava &amp; "q" &lt;x&gt;</artifactId>
    </dependency>
  </dependencies>
  <?build fast?>
</project>`;

const wide = { maxChars: 200_000, maxValues: 1000 };
const xml = (doc: string, xpath: string, namespaces = {}, budget = wide) =>
  query(doc, xpath, namespaces, budget, 'xml');
const paths = (doc: string, xpath: string, namespaces = {}, budget = wide) =>
  query(doc, xpath, namespaces, budget, 'paths');

describe('query with output "xml"', () => {
  it('serialises an element with its subtree, escaped as in a document', () => {
    expect(xml(pom, '//m:dependency', { m: POM })).toEqual({
      type: 'node-set',
      count: 2,
      values: [
        '<dependency>\n      <artifactId>junit</artifactId>\n      <scope>test</scope>\n    </dependency>',
        '<dependency>\n      <artifactId>guava &amp; "q" &lt;x&gt;</artifactId>\n    </dependency>',
      ],
    });
  });

  it('writes attributes as name="value", namespace nodes as declarations, text, comments and PIs as themselves', () => {
    expect(xml(pom, '//@*').values).toEqual([`xsi:schemaLocation="${POM} x.xsd"`]);
    expect(xml('<r a="1 &quot;2&quot;&#10;"/>', '//@a').values).toEqual(['a="1 &quot;2&quot;&#10;"']);
    expect(xml(pom, '/*/namespace::*').values.sort()).toEqual([
      'xmlns:xml="http://www.w3.org/XML/1998/namespace"',
      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
      `xmlns="${POM}"`,
    ]);
    expect(xml(pom, '//comment() | //processing-instruction()').values).toEqual([
      '<!-- deps -->',
      '<?build fast?>',
    ]);
    expect(xml('<r>a &lt; b</r>', '//text()').values).toEqual(['a &lt; b']);
  });

  it('serialises the document node as its top-level nodes, one per line', () => {
    expect(xml('<?xml version="1.0"?><!--c--><r><a/></r><?p?>', '/').values).toEqual([
      '<!--c-->\n<r><a/></r>\n<?p?>',
    ]);
  });

  it('answers scalars as values whatever the output', () => {
    expect(xml(pom, 'count(//*)')).toEqual({ type: 'number', count: 1, values: ['7'] });
    expect(paths(pom, 'string(1)')).toEqual({ type: 'string', count: 1, values: ['1'] });
  });

  it('cuts each node at its share of the budget, says so, and keeps the count exact', () => {
    const doc = `<r>${`<e>${'x'.repeat(500)}</e>`.repeat(10)}</r>`;
    // A node's share is what it may take as a JSON string (its quotes and comma included).
    const one = xml(doc, '/r', {}, { maxChars: 1000, maxValues: 1000 });
    expect(one.truncated).toBe(true);
    expect(shownCost(one.values[0] ?? '')).toBe(1000);
    expect(one.values[0]?.endsWith(CUT_MARK)).toBe(true);
    const each = xml(doc, '//e', {}, { maxChars: 3000, maxValues: 1000 });
    expect(each.count).toBe(10);
    expect(each.truncated).toBe(true);
    // Ten nodes share 3,000 characters: 300 each, the floor of 200 being below that.
    expect(each.values).toHaveLength(10);
    expect(each.values.every((value) => shownCost(value) === 300 && value.endsWith(CUT_MARK))).toBe(true);
    const many = xml(doc, '//e', {}, { maxChars: 1000, maxValues: 1000 });
    expect(many.values).toHaveLength(Math.floor(1000 / MIN_NODE_MARKUP_CHARS));
    expect(many.values.reduce((chars, value) => chars + shownCost(value), 0)).toBeLessThanOrEqual(1000);
  });

  it('gives a small node its markup whole and leaves its unused share to the next ones', () => {
    const doc = `<r><e>short</e><e>${'y'.repeat(1500)}</e></r>`;
    const result = xml(doc, '//e', {}, { maxChars: 1000, maxValues: 1000 });
    expect(result.values[0]).toBe('<e>short</e>');
    expect(shownCost(result.values[1] ?? '')).toBe(1000 - shownCost('<e>short</e>'));
  });

  it('never splits a surrogate pair where it cuts', () => {
    const result = xml(`<r>${'😀'.repeat(400)}</r>`, '/r', {}, { maxChars: 101, maxValues: 10 });
    expect(result.values[0]?.isWellFormed()).toBe(true);
    expect(result.values[0]?.length).toBeLessThanOrEqual(101);
  });

  it('serialises the root of the 8 MiB benchmark document only as far as the budget', () => {
    const bench = generateDocument({ label: '8 MiB', maxBytes: 8 * 1024 * 1024 });
    const doc = parseDocument(bench.xml, 'query');
    try {
      for (const xpath of ['/', '/*']) {
        const result = queryDocument(doc, xpath, {}, { maxChars: 5000, maxValues: 1000 }, 'xml');
        // Within the budget, short of it by at most the escapes the last cut removed.
        expect(shownCost(result.values[0] ?? '')).toBeLessThanOrEqual(5000);
        expect(shownCost(result.values[0] ?? '')).toBeGreaterThan(4900);
        expect(result.values[0]?.endsWith(CUT_MARK)).toBe(true);
      }
    } finally {
      doc.dispose();
    }
  });

  it('reads no more of a huge text node than the budget needs', () => {
    const result = xml(
      `<r>${'t'.repeat(4 * 1024 * 1024)}</r>`,
      '//text() | /r',
      {},
      { maxChars: 1000, maxValues: 10 },
    );
    expect(result.values.map(shownCost)).toEqual([500, 500]);
  });

  it('loads nothing: an external entity reference is written as a reference', () => {
    const doc = '<!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/passwd">]><r>&e;</r>';
    expect(xml(doc, '/r').values[0]).not.toContain('root:');
  });
});

describe('query with output "paths"', () => {
  it('gives each node a positional path with the bound prefixes, and its line', () => {
    expect(paths(pom, '//m:artifactId', { m: POM })).toEqual({
      type: 'node-set',
      count: 2,
      values: [
        '/m:project/m:dependencies/m:dependency[1]/m:artifactId',
        '/m:project/m:dependencies/m:dependency[2]/m:artifactId',
      ],
      lines: [7, 11],
    });
  });

  it("writes *[local-name()='x'] steps where the caller bound no prefix", () => {
    expect(paths(pom, "//*[local-name()='scope']").values).toEqual([
      "/*[local-name()='project']/*[local-name()='dependencies']/*[local-name()='dependency'][1]/*[local-name()='scope']",
    ]);
  });

  it('names the document node, attributes, namespace nodes, text, comments and PIs', () => {
    expect(paths(pom, '/')).toMatchObject({ values: ['/'], lines: [0] });
    expect(
      paths(pom, '//@xsi:schemaLocation', { xsi: 'http://www.w3.org/2001/XMLSchema-instance' }),
    ).toMatchObject({
      values: ["/*[local-name()='project']/@xsi:schemaLocation"],
      // libxml2 records an element's line where its start tag ends.
      lines: [3],
    });
    expect(paths('<r xml:lang="en"><a>x</a>y<a/>z</r>', '//@xml:lang | /r/text()').values).toEqual([
      '/r/@xml:lang',
      '/r/text()[1]',
      '/r/text()[2]',
    ]);
    expect(paths(pom, '/*/namespace::*').values.sort()).toEqual([
      "/*[local-name()='project']/namespace::*[local-name()='']",
      "/*[local-name()='project']/namespace::xml",
      "/*[local-name()='project']/namespace::xsi",
    ]);
    expect(paths(pom, '//comment() | //processing-instruction()')).toMatchObject({
      values: [
        "/*[local-name()='project']/comment()",
        "/*[local-name()='project']/processing-instruction('build')",
      ],
      lines: [4, 14],
    });
  });

  it('gives paths that select exactly their node again, with the same namespaces', () => {
    const documents: Array<[string, Record<string, string>]> = [
      [pom, {}],
      [pom, { m: POM }],
      [
        '<a:r xmlns:a="urn:a" xmlns:b="urn:b"><a:x/><b:x/><x/><a:x b:k="1" k="2"/>t<!--c-->t<?p?><?q?><?p?></a:r>',
        {},
      ],
      [
        '<a:r xmlns:a="urn:a" xmlns:b="urn:b"><a:x/><b:x/><x/><a:x b:k="1" k="2"/>t<!--c-->t<?p?><?q?><?p?></a:r>',
        { b: 'urn:b' },
      ],
      // Siblings declaring the same namespace each for themselves (other libxml2 structs, one
      // URI), a default namespace among them, and names interleaved across one wide parent.
      [
        `<r>${Array.from({ length: 30 }, (_, i) => ['<c:y xmlns:c="urn:c"/>', '<y xmlns="urn:c"/>', '<y/>', '<z/>t'][i % 4]).join('')}</r>`,
        {},
      ],
      [
        `<r>${Array.from({ length: 30 }, (_, i) => ['<c:y xmlns:c="urn:c"/>', '<y xmlns="urn:c"/>', '<y/>', '<z/>t'][i % 4]).join('')}</r>`,
        { d: 'urn:c' },
      ],
    ];
    for (const [doc, namespaces] of documents) {
      const all = paths(doc, '/ | //node() | //@* | //namespace::*', namespaces);
      expect(all.count).toBe(all.values.length);
      all.values.forEach((path, index) => {
        const again = paths(doc, path, namespaces);
        expect(again.values, path).toEqual([path]);
        expect(again.lines).toEqual([all.lines?.[index]]);
      });
    }
  });

  it('numbers siblings right when a batch asks for them out of document order', () => {
    const doc = `<r>${'<x/><y/>'.repeat(5)}</r>`;
    const entries = queryAll(doc, ['//x[4]', '//x[2] | //y[5]', '//y[1]'], {}, undefined, 'paths');
    expect(entries.map((entry) => ('values' in entry ? entry.values : entry.error))).toEqual([
      ['/r/x[4]'],
      ['/r/x[2]', '/r/y[5]'],
      ['/r/y[1]'],
    ]);
  });

  it('reports lines past 65,535 as they are', () => {
    const doc = `<r>${'\n'.repeat(70_000)}<a>x</a>\n<b>t</b></r>`;
    expect(paths(doc, '//a | //b').lines).toEqual([70_001, 70_002]);
  });

  it('leaves a path out rather than cutting it', () => {
    const result = paths(`<r>${'<item/>'.repeat(50)}</r>`, '//item', {}, { maxChars: 100, maxValues: 1000 });
    expect(result.truncated).toBe(true);
    expect(result.values.length).toBeGreaterThan(0);
    expect(result.values.every((path) => /^\/r\/item\[\d+\]$/.test(path))).toBe(true);
  });
});

describe('queryAll (a batch)', () => {
  it('answers every expression in order, a failing one with its own error', () => {
    const results = queryAll(pom, ['count(//m:dependency)', '//x[', '//m:scope', '//q:a', ''], { m: POM });
    expect(results[0]).toEqual({ xpath: 'count(//m:dependency)', type: 'number', count: 1, values: ['2'] });
    expect(results[1]).toMatchObject({ xpath: '//x[', error: expect.stringContaining('at character 5') });
    expect(results[2]).toEqual({ xpath: '//m:scope', type: 'node-set', count: 1, values: ['test'] });
    expect(results[3]).toMatchObject({ error: expect.stringContaining('Prefix `q` is not bound') });
    expect(results[4]).toMatchObject({ error: expect.stringMatching(/^The expression is empty/) });
  });

  it('fails as a whole only for namespaces XPath cannot use', () => {
    expect(() => queryAll(pom, ['1'], { '': POM })).toThrow(/no default namespace/);
  });

  it('shares the output budget: each expression gets an equal share of what the ones before it left', () => {
    const doc = `<r>${'<v>1234567890</v>'.repeat(100)}</r>`;
    const results = queryAll(doc, ['//v', 'count(//v)', '//v'], {}, { maxChars: 300, maxValues: 1000 });
    const [first, second, third] = results;
    expect(first).toMatchObject({ count: 100, truncated: true });
    // `"1234567890",` costs 13: seven fit the first's 100, the cut mark not in the 9 left.
    const cost = (entry: (typeof results)[number] | undefined) =>
      entry && 'values' in entry ? entry.values.reduce((chars, value) => chars + shownCost(value), 0) : 0;
    expect(first && 'values' in first ? first.values : []).toHaveLength(7);
    expect(second).toMatchObject({ values: ['100'] });
    // The third has what the first two left, all of it in whole values: 8 is too few for the mark.
    expect(third && 'values' in third ? third.values : []).toHaveLength(
      Math.floor((300 - cost(first) - cost(second)) / 13),
    );
  });

  it('shares the XPath operation budget, so runaway expressions stop the batch, not the worker', () => {
    const doc = `<r>${'<a><b/></a>'.repeat(40_000)}</r>`;
    const runaway = 'count(//*[count(//*) > 0])';
    const results = queryAll(doc, ['count(//a)', runaway, 'count(//b)']);
    expect(results[0]).toMatchObject({ values: ['40000'] });
    expect(results[1]).toMatchObject({ error: expect.stringContaining("left of this batch's budget") });
    expect(results[2]).toMatchObject({ error: expect.stringMatching(/^Not evaluated/) });
    for (const stopped of results.slice(1)) {
      expect(stopped).toMatchObject({ error: expect.stringContaining(String(MAX_BATCH_XPATH_OPERATIONS)) });
    }
  });

  it('writes markup and paths for every expression of a batch', () => {
    expect(query(pom, '//m:scope', { m: POM }, wide, 'xml').values).toEqual(['<scope>test</scope>']);
    const [entry] = queryAll(pom, ['//m:scope'], { m: POM }, wide, 'paths');
    expect(entry).toMatchObject({
      values: ['/m:project/m:dependencies/m:dependency[1]/m:scope'],
      lines: [8],
    });
  });
});
