import { describe, expect, it } from 'vitest';
import { answerOf, inMemoryClient, textOf as text } from './support/in-memory-server.js';

const { client, call } = inMemoryClient('query-output-test');
const query = (args: Record<string, unknown>) => call('xml_query', args);

const ATOM = 'http://www.w3.org/2005/Atom';
const feed = `<feed xmlns="${ATOM}">
  <entry><title>One</title><link href="/1"/></entry>
  <entry><title>Two &amp; more</title></entry>
</feed>`;
const a = { a: ATOM };

describe('xml_query output and batches through the in-memory client', () => {
  it('keeps the plain answer exactly as before when output is not given', async () => {
    const result = await query({ xml: feed, xpath: '//a:title', namespaces: a });
    expect(text(result)).toBe('2 nodes matched `//a:title`:\nOne\nTwo & more');
    expect(result.structuredContent).toEqual({ type: 'node-set', count: 2, values: ['One', 'Two & more'] });
  });

  it('answers each matched node as markup with output "xml"', async () => {
    const result = await query({ xml: feed, xpath: '//a:entry', namespaces: a, output: 'xml' });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe(
      '2 nodes matched `//a:entry`:\n<entry><title>One</title><link href="/1"/></entry>\n<entry><title>Two &amp; more</title></entry>',
    );
    expect(result.structuredContent).toEqual({
      type: 'node-set',
      count: 2,
      values: [
        '<entry><title>One</title><link href="/1"/></entry>',
        '<entry><title>Two &amp; more</title></entry>',
      ],
    });
  });

  it('says which nodes were cut and how to see more', async () => {
    const xml = `<r>${`<e>${'x'.repeat(400)}</e>`.repeat(5)}</r>`;
    const result = await query({ xml, xpath: '//e', output: 'xml', max_chars: 1000 });
    expect(result.structuredContent).toMatchObject({ count: 5, truncated: true });
    expect(text(result)).toContain('5 of the 5 shown cut where …[cut] stands');
    expect(text(result)).toContain('raise max_chars');
  });

  it('marks the value the budget cut, so a cut id is not read as a whole one', async () => {
    const xml = `<r>${'<id>ORDER-100727</id>'.repeat(50)}</r>`;
    // Each value costs what it takes in structuredContent's JSON: `"ORDER-100727",` is 15.
    const result = await query({ xml, xpath: '//id', max_chars: 134 });
    const lines = text(result).split('\n');
    expect(lines.slice(1, -1)).toEqual([...Array(8).fill('ORDER-100727'), 'ORDER…[cut]']);
    const note =
      '[Showing 9 of 50 values (41 left out); 1 of the 9 shown cut where …[cut] stands: output budget of 1000 values / 134 characters. Narrow the query (a predicate, [position() <= 20], count(...)) or raise max_chars.]';
    expect(lines.at(-1)).toBe(note);
    expect(result.structuredContent).toMatchObject({ count: 50, truncated: true, notes: [note] });
  });

  it('answers location paths and lines with output "paths"', async () => {
    const result = await query({ xml: feed, xpath: '//a:title', namespaces: a, output: 'paths' });
    expect(text(result)).toBe(
      '2 nodes matched `//a:title`:\n/a:feed/a:entry[1]/a:title (line 2)\n/a:feed/a:entry[2]/a:title (line 3)',
    );
    expect(result.structuredContent).toEqual({
      type: 'node-set',
      count: 2,
      values: ['/a:feed/a:entry[1]/a:title', '/a:feed/a:entry[2]/a:title'],
      lines: [2, 3],
    });
  });

  it('answers a batch in order, each entry headed by its expression, one bad expression failing alone', async () => {
    const result = await query({
      xml: feed,
      xpath: [
        'count(//a:entry)',
        '//a:entry/a:title',
        '//a:link/@href',
        '//x[',
        'string(//a:none)',
        '//none',
      ],
      namespaces: a,
    });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe(
      [
        '1. `count(//a:entry)` → 2',
        '2. `//a:entry/a:title` → 2 nodes:',
        '   One',
        '   Two & more',
        '3. `//a:link/@href` → 1 node:',
        '   /1',
        '4. `//x[` → error: The expression is not a valid XPath 1.0 expression at character 5: Invalid expression.',
        '     //x[',
        '         ^',
        '5. `string(//a:none)` → the empty string',
        '6. `//none` → 0 nodes matched.',
      ].join('\n'),
    );
    expect(result.structuredContent).toEqual({
      results: [
        { xpath: 'count(//a:entry)', type: 'number', count: 1, values: ['2'] },
        { xpath: '//a:entry/a:title', type: 'node-set', count: 2, values: ['One', 'Two & more'] },
        { xpath: '//a:link/@href', type: 'node-set', count: 1, values: ['/1'] },
        { xpath: '//x[', error: expect.stringContaining('at character 5') },
        { xpath: 'string(//a:none)', type: 'string', count: 1, values: [''] },
        { xpath: '//none', type: 'node-set', count: 0, values: [] },
      ],
    });
  });

  it('explains an empty entry of a batch, and answers an XPath 3.1 entry saying so, in both channels', async () => {
    const result = await query({
      xml: feed,
      xpath: ['count(//entry)', '//a:title ! lower-case(.)', '//a:title'],
      namespaces: a,
    });
    const lines = text(result).split('\n');
    expect(lines[0]).toBe('1. `count(//entry)` → 0');
    const hint = `The document has no \`entry\` elements in no namespace: they are in ${ATOM}, and an unprefixed name in XPath 1.0 means no namespace, even under a default namespace. So write \`count(//a:entry)\`.`;
    expect(lines[1]).toBe(`   ${hint}`);
    expect(lines.slice(2, 6)).toEqual([
      '2. `//a:title ! lower-case(.)` → 2 items:',
      '   one',
      '   two & more',
      '   (evaluated as XPath 3.1)',
    ]);
    expect(lines[6]).toBe('3. `//a:title` → 2 nodes:');
    expect(result.structuredContent).toEqual({
      results: [
        { xpath: 'count(//entry)', type: 'number', count: 1, values: ['0'], notes: [hint] },
        {
          xpath: '//a:title ! lower-case(.)',
          type: 'sequence',
          count: 2,
          values: ['one', 'two & more'],
          xpath_version: '3.1',
          notes: ['(evaluated as XPath 3.1)'],
        },
        { xpath: '//a:title', type: 'node-set', count: 2, values: ['One', 'Two & more'] },
      ],
    });
  });

  it('heads an entry with a long expression by its start and end, in structuredContent too (both count in max_chars)', async () => {
    const long = `count(//a:entry[${Array.from({ length: 20 }, (_, i) => `a:title = 'title number ${i}'`).join(' or ')}])`;
    const result = await query({ xml: feed, xpath: [long, 'count(//a:title)'], namespaces: a });
    const [first = ''] = text(result).split('\n');
    expect(first).toBe(`1. \`${long.slice(0, 59)}…${long.slice(-59)}\` → 0`);
    expect(result.structuredContent).toMatchObject({
      results: [{ xpath: `${long.slice(0, 59)}…${long.slice(-59)}` }, { xpath: 'count(//a:title)' }],
    });
  });

  it('never calls an entry whose share showed nothing "empty"', async () => {
    // A path is never cut: one longer than the entry's share leaves it showing none.
    const long = 'n'.repeat(400);
    const xml = `<r>${`<${long}>x</${long}>`.repeat(5)}<s></s></r>`;
    const result = await query({ xml, xpath: [`//${long}`, 'string(//s)'], output: 'paths', max_chars: 600 });
    const lines = text(result).split('\n');
    expect(lines[0]).toMatch(/^1\. `\/\/n+…n+` → 5 nodes, none shown:$/);
    expect(lines[1]).toMatch(/^ {3}\[Showing 0 of 5 paths \(5 left out\): this expression's share/);
    expect(text(result)).not.toContain('all with empty text');
    expect(text(result)).toContain('2. `string(//s)` → the empty string');
  });

  it('shortens a long expression in its heading and error without splitting a surrogate pair', async () => {
    const long = `//${'a'.repeat(58)}😀${'b'.repeat(200)}[`;
    const result = await query({ xml: '<r/>', xpath: [long, '1'] });
    const body = text(result);
    expect(body.isWellFormed()).toBe(true);
    expect(body.length).toBeLessThan(800);
    expect(body).toMatch(/^1\. `.{59}….{59}` → error: The expression is not a valid XPath 1\.0 expression/u);
    expect(body).toContain('\n2. `1` → 1');
    const { results } = result.structuredContent as { results: Array<{ xpath: string; error?: string }> };
    expect(results[0]?.xpath).toMatch(/^.{59}….{59}$/u);
    expect(results[0]?.xpath.isWellFormed()).toBe(true);
    expect((results[0]?.error ?? '').length).toBeLessThan(600);
  });

  it('gives the declared binding for an entry whose prefix is unbound', async () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><use xlink:href="#a"/></svg>';
    const result = await query({ xml: svg, xpath: ['count(//@xlink:href)', '1 + 1'] });
    expect(text(result)).toMatch(
      /^1\. `count\(\/\/@xlink:href\)` → error: .*"xlink": ?"http:\/\/www\.w3\.org\/1999\/xlink"/,
    );
    expect(text(result)).toContain('2. `1 + 1` → 2');
  });

  it('gives paths for every expression of a batch with output "paths"', async () => {
    const result = await query({
      xml: feed,
      xpath: ['//a:link', '//a:entry[2]'],
      namespaces: a,
      output: 'paths',
    });
    expect(text(result)).toBe(
      '1. `//a:link` → 1 node:\n   /a:feed/a:entry[1]/a:link (line 2)\n2. `//a:entry[2]` → 1 node:\n   /a:feed/a:entry[2] (line 3)',
    );
  });

  it('notes a cut entry of a batch as its share of the budget', async () => {
    const xml = `<r>${'<v>1234567890</v>'.repeat(100)}</r>`;
    const result = await query({ xml, xpath: ['//v', 'count(//v)'], max_chars: 800 });
    const cut = "[Showing 16 of 100 values (84 left out): this expression's share";
    expect(text(result)).toContain(cut);
    expect(result.structuredContent).toMatchObject({
      results: [{ count: 100, truncated: true, notes: [expect.stringContaining(cut)] }, { values: ['100'] }],
    });
  });

  it('keeps a whole batch within max_chars in either channel, its headings and notes counted (issue 33 F9)', async () => {
    const xml = `<r>${`<v>${'x'.repeat(300)}</v>`.repeat(2_000)}</r>`;
    const xpath = Array.from(
      { length: 32 },
      (_, i) => `//v[${i} >= 0 or string-length(.) > ${'9'.repeat(100)}]`,
    );
    for (const max_chars of [200_000, 20_000, 14_000]) {
      const result = await query({ xml, xpath, max_chars });
      // The handle's sentence, said once per answer, is the answer's and not the batch's.
      const [batch = ''] = text(result).split('\ndocument: d_');
      expect(batch.length).toBeLessThanOrEqual(max_chars);
      expect(JSON.stringify(answerOf(result.structuredContent)).length).toBeLessThanOrEqual(max_chars);
      // Every entry is answered and says what was left out.
      expect(batch).toContain('32. `//v[31 >= 0');
      expect((result.structuredContent as { results: unknown[] }).results).toHaveLength(32);
      expect(batch).toContain('left out');
    }
  });

  it('refuses a batch whose headings and notes alone are past max_chars, saying what it needs', async () => {
    const xpath = Array.from(
      { length: 32 },
      (_, i) => `//v[${i} >= 0 or string-length(.) > ${'9'.repeat(100)}]`,
    );
    const result = await query({ xml: '<r><v/></r>', xpath, max_chars: 100 });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /^A batch of 32 expressions takes \d+ characters with no values shown, past max_chars 100: its headings and notes alone\. Raise max_chars to \d+ or more, or send fewer expressions\.$/,
    );
  });

  it('refuses a batch past its bounds, naming the argument, before it runs', async () => {
    const tooMany = await query({ xml: '<r/>', xpath: Array.from({ length: 33 }, () => '1') });
    expect(tooMany.isError).toBe(true);
    expect(text(tooMany)).toBe(
      'The `xpath` argument of xml_query is invalid: an array of 33 expressions; the limit is 32: split the batch.',
    );
    const tooLong = await query({ xml: '<r/>', xpath: ['1', 'x'.repeat(2049)] });
    expect(text(tooLong)).toContain(
      'The `xpath.1` argument of xml_query is invalid: longer than the limit of 2048',
    );
    expect(text(await query({ xml: '<r/>', xpath: [] }))).toContain('an empty array');
    expect(text(await query({ xml: '<r/>', xpath: [1] }))).toContain(
      'must be a string or an array of strings',
    );
    expect(text(await query({ xml: '<r/>', xpath: 3 }))).toBe(
      'The `xpath` argument of xml_query must be a string, not 3.',
    );
    expect(text(await query({ xml: '<r/>', xpath: '//a', output: 'json' }))).toContain('`output` argument');
  });

  it('lists output and the batch form without growing tools/list much', async () => {
    const { tools } = await client().listTools();
    const tool = tools.find((candidate) => candidate.name === 'xml_query');
    expect(tool?.inputSchema.properties).toHaveProperty('output');
    expect(JSON.stringify(tool?.inputSchema.properties?.xpath)).toContain('"type":"array"');
    expect(tool?.outputSchema?.properties).toHaveProperty('results');
    expect(JSON.stringify(tool).length).toBeLessThan(2_300);
  });
});
