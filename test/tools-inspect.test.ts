import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDocument, SIZES } from '../bench/documents.js';
import { DEFAULT_INSPECT_CHARS, MAX_OUTPUT_CHARS, MIN_OUTPUT_CHARS } from '../src/limits.js';
import { answerOf, type CallResult, connectInMemory, textOf as text } from './support/in-memory-server.js';
import { docbookBook, manyAttributes } from './support/shape-documents.js';

/* xml_inspect through the SDK's in-memory client: the text a model reads and the structured answer. */

let session: Awaited<ReturnType<typeof connectInMemory>>;
beforeAll(async () => {
  session = await connectInMemory('inspect-test');
});
afterAll(async () => {
  await session?.close();
});

const call = (name: string, args: Record<string, unknown>) =>
  session.client.callTool({ name, arguments: args }) as Promise<CallResult>;
const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

/** The `namespaces` object the text tells the model to pass. */
function bindingIn(answer: string): Record<string, string> {
  const found = /"namespaces": (\{.*?\}) \(any prefix works/.exec(answer);
  return found ? JSON.parse(found[1] as string) : {};
}

describe('xml_inspect shows the shape a query needs', () => {
  it('outlines a POM so that its binding and paths answer a query in one call', async () => {
    const pom = fixture('pom.xml');
    const answer = await call('xml_inspect', { xml: pom });
    const shown = text(answer);
    expect(shown).toContain(
      '/project/dependencies/dependency ×12: groupId artifactId version×3 scope×5 optional×1 exclusions×1',
    );
    expect(shown).toContain('http://www.w3.org/2001/XMLSchema-instance — 1 attribute, written as xsi:');
    expect(shown).toContain('//ns1:artifactId, not //artifactId');
    expect(shown).toContain(
      '  dependency: 12 — groupId artifactId version×3 scope×5 optional×1 exclusions×1',
    );
    const namespaces = bindingIn(shown);
    expect(namespaces).toEqual({
      ns1: 'http://maven.apache.org/POM/4.0.0',
      xsi: 'http://www.w3.org/2001/XMLSchema-instance',
    });
    const tests = await call('xml_query', {
      xml: pom,
      xpath: "/ns1:project/ns1:dependencies/ns1:dependency[ns1:scope='test']/ns1:artifactId",
      namespaces,
    });
    expect((tests.structuredContent as { values: string[] }).values).toEqual([
      'spring-boot-starter-test',
      'postgresql',
      'junit-jupiter',
      'rest-assured',
    ]);
    const schema = await call('xml_query', { xml: pom, xpath: 'string(/*/@xsi:schemaLocation)', namespaces });
    expect(text(schema)).toMatch(/^http:\/\/maven\.apache\.org\/POM\/4\.0\.0 https:/);
  });

  it('carries the same facts in structuredContent: the outline lines, counts, details, namespaces', async () => {
    const answer = await call('xml_inspect', { xml: fixture('icon.svg.xml') });
    const structured = answer.structuredContent as {
      outline: string[];
      details: Record<string, string>;
      namespaces: Array<{ uri: string; attributes?: number }>;
      distinctPaths: number;
    };
    for (const line of structured.outline) expect(text(answer)).toContain(`\n${line}\n`);
    expect(structured.outline).toContain(
      '/svg/g/use ×3: @xlink:href @x @y @transform×1 @width×1 @height×1 @fill×1',
    );
    expect(structured.details.use).toBe('@xlink:href @x @y @transform×1 @width×1 @height×1 @fill×1');
    expect(structured.namespaces).toContainEqual({
      uri: 'http://www.w3.org/1999/xlink',
      prefixes: ['xlink'],
      elements: 0,
      attributes: 4,
    });
    expect(structured).not.toHaveProperty('omitted');
    expect(structured).not.toHaveProperty('unprefixedExample');
    const hrefs = await call('xml_query', {
      xml: fixture('icon.svg.xml'),
      xpath: "//ns1:use/@xlink:href[. = '#arrow']",
      namespaces: bindingIn(text(answer)),
    });
    expect((hrefs.structuredContent as { values: string[] }).values).toEqual(['#arrow', '#arrow']);
  });

  it('says the xml namespace needs no binding, and xml:lang answers without one', async () => {
    const atom = fixture('atom.xml');
    const shown = text(await call('xml_inspect', { xml: atom }));
    expect(shown).toContain('written as xml: (built in: xml:lang and the like need no binding)');
    expect(bindingIn(shown)).not.toHaveProperty('xml');
    expect(shown).toContain('//ns1:link, not //link; //ns2:div, not //div');
    expect(text(await call('xml_query', { xml: atom, xpath: 'string(/*/@xml:lang)' }))).toBe('en');
    const entries = await call('xml_query', {
      xml: atom,
      xpath: 'count(//ns1:entry)',
      namespaces: bindingIn(shown),
    });
    expect(text(entries)).toBe('3');
  });

  it('stays within max_chars whatever the names: a 50,000-character root name is cut (issue 24)', async () => {
    const name = `r${'x'.repeat(49_999)}`;
    for (const max_chars of [8_000, 200_000]) {
      const result = await call('xml_inspect', { xml: `<${name}><a/></${name}>`, max_chars });
      expect(text(result).length).toBeLessThanOrEqual(max_chars);
      expect(text(result)).toContain(`Root element: r${'x'.repeat(20)}`);
    }
    const short = await call('xml_inspect', { xml: `<${name}/>`, max_chars: 8_000 });
    expect(text(short)).toMatch(/^Root element: rx+…\[cut\]\n/);
  });

  it('stays within max_chars in either channel with a 50,000-character prefix (issue 33 F9)', async () => {
    const p = `p${'x'.repeat(49_999)}`;
    const documents = [
      `<${p}:r xmlns:${p}="urn:x"><${p}:a/></${p}:r>`,
      `<r xmlns:${p}="urn:x" ${p}:id="1"><a/></r>`,
      `<r><a xmlns:${p}="urn:x"><${p}:b/></a><c xmlns:${p}="urn:y"><${p}:b/></c></r>`,
    ];
    for (const xml of documents) {
      for (const max_chars of [2_000, 60_000, 100_000, 200_000]) {
        const result = await call('xml_inspect', { xml, max_chars });
        expect(text(result).length).toBeLessThanOrEqual(max_chars);
        expect(JSON.stringify(answerOf(result.structuredContent)).length).toBeLessThanOrEqual(max_chars);
      }
    }
    // Listed where it is written, bound as ns1 in the binding to pass.
    const shown = text(await call('xml_inspect', { xml: documents[1], max_chars: 200_000 }));
    expect(shown).toContain(`written as ${p}:`);
    expect(shown).toContain('Pass to xml_query as "namespaces": {"ns1":"urn:x"}');
  });

  it('keeps the answers it gave before: root, depth, totals, names with counts', async () => {
    const answer = await call('xml_inspect', { xml: '<r><t>x</t></r>' });
    expect(text(answer)).toContain(
      'Root element: r\nMaximum depth: 3\nElements: 2 in 2 names; attributes: 0',
    );
    expect(text(answer)).toContain('  t: 1 — text');
    expect(answer.structuredContent).toEqual({
      root: 'r',
      maxDepth: 3,
      totalElements: 2,
      attributes: 0,
      elements: { r: 1, t: 1 },
      details: { r: 't', t: 'text' },
      namespaces: [],
      outline: ['/r: t'],
      values: { '/r/t': 'x' },
      distinctPaths: 2,
      legend: expect.stringMatching(/^outline: per distinct element path/),
      notes: ['Namespaces: none to bind (unprefixed XPath names match these elements).'],
    });
  });

  it('shows what an attribute and a leaf hold, so the filter is written right in the next call', async () => {
    const moves = `<log>${['IN', 'OUT', 'IN', 'IN', 'OUT']
      .map(
        (direction, i) => `<move direction="${direction}"><qty>${i * 10 + 5}</qty><note> late </note></move>`,
      )
      .join('')}</log>`;
    const answer = await call('xml_inspect', { xml: moves });
    expect(text(answer)).toContain(
      '/log/move ×5: @direction; qty note\n  @direction: IN×3 OUT×2\n  qty: 5 distinct: 5 15 25 35 45\n  note: " late "×5; 5 with white space at an edge\n',
    );
    expect(text(answer)).toContain('Indented under it, what its attributes and leaves hold');
    expect((answer.structuredContent as { values: Record<string, string> }).values).toEqual({
      '/log/move/@direction': 'IN×3 OUT×2',
      '/log/move/qty': '5 distinct: 5 15 25 35 45',
      '/log/move/note': '" late "×5; 5 with white space at an edge',
    });
    const ins = await call('xml_query', { xml: moves, xpath: "sum(//move[@direction='IN']/qty)" });
    expect(text(ins)).toBe('65');
  });

  it('shows under a name at several paths what its text holds over them, and values that differ only in case', async () => {
    const answer = await call('xml_inspect', { xml: fixture('pom.xml') });
    expect(text(answer)).toContain(
      '; indented under a name at several paths, what a field holds over them:\n',
    );
    expect(text(answer)).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a POM's property references, as written
      '  version: 7 — text\n    text (4 paths): ${mapstruct.version}×2 ${testcontainers.version}×2 3.2.4×1 1.4.0-SNAPSHOT×1 1.18.30×1\n',
    );
    const values = (answer.structuredContent as { values: Record<string, string> }).values;
    expect(values['//groupId']).toMatch(/^11 distinct of 20: org\.springframework\.boot×6 /);
    const moves = await call('xml_inspect', {
      xml: '<log><move dir="IN"/><move dir="in"/><move dir="OUT"/></log>',
    });
    expect(text(moves)).toContain('  @dir: 3 distinct: IN in OUT; IN/in differ only in case\n');
  });

  it('refuses a max_chars outside its bounds, naming it', async () => {
    for (const max_chars of [MIN_OUTPUT_CHARS - 1, MAX_OUTPUT_CHARS + 1, 'many']) {
      const answer = await call('xml_inspect', { xml: '<r/>', max_chars });
      expect(answer.isError).toBe(true);
      expect(text(answer)).toContain('max_chars');
    }
  });
});

describe('xml_inspect inside its character budget', () => {
  const hard: Array<[string, () => string]> = [
    ['a DocBook book of 300+ element names', docbookBook],
    ['one element with 10^5 attributes', () => manyAttributes(100_000)],
    ['the 8 MiB benchmark document', () => generateDocument(SIZES[3] as (typeof SIZES)[number]).xml],
  ];
  for (const [what, make] of hard) {
    it(`answers ${what} within the default budget, the structured answer within twice it`, async () => {
      const answer = await call('xml_inspect', { xml: make() });
      expect(answer.isError).toBeFalsy();
      expect(text(answer)).toMatch(/^Root element: /);
      expect(text(answer).length).toBeLessThanOrEqual(DEFAULT_INSPECT_CHARS);
      expect(JSON.stringify(answer.structuredContent).length).toBeLessThanOrEqual(2 * DEFAULT_INSPECT_CHARS);
    });
  }

  it('keeps any max_chars from 2,000 up, and at the smallest still gives the fixed facts and says what it left out', async () => {
    const book = docbookBook();
    for (const max_chars of [2_000, 5_000, 20_000, 60_000]) {
      const answer = await call('xml_inspect', { xml: book, max_chars });
      expect(text(answer).length).toBeLessThanOrEqual(max_chars);
    }
    const smallest = text(await call('xml_inspect', { xml: book, max_chars: MIN_OUTPUT_CHARS }));
    expect(smallest).toContain('Root element: book');
    expect(smallest).toContain('"namespaces": {"ns1":"http://docbook.org/ns/docbook"');
    expect(smallest).toMatch(/less frequent names left out/);
    expect(smallest.length).toBeLessThan(2_000);
  });

  it('keeps max_chars with many names at two paths, each with values over them (ADR 0043)', async () => {
    const names = Array.from({ length: 150 }, (_, i) => `field${i}`);
    const holder = (tag: string) =>
      `<${tag}>${names.map((name, i) => `<${name} kind="k${i % 3}">value ${i} of ${tag}</${name}>`).join('')}</${tag}>`;
    const xml = `<r>${holder('a')}${holder('b')}</r>`;
    for (const max_chars of [2_000, 4_000, 8_000, 20_000]) {
      const answer = await call('xml_inspect', { xml, max_chars });
      expect(text(answer).length).toBeLessThanOrEqual(max_chars);
      expect(JSON.stringify(answer.structuredContent).length).toBeLessThanOrEqual(2 * max_chars);
    }
    const roomy = await call('xml_inspect', { xml, max_chars: 60_000 });
    expect(text(roomy)).toContain(
      '  field0: 2 — @kind; text\n    @kind (2 paths): k0×2\n    text (2 paths): 2 distinct: "value 0 of a" "value 0 of b"\n',
    );
  });
});

describe('xml_inspect in a client that shows only structuredContent', () => {
  /** The answer without the session's handle and the note saying what to do with it. */
  const shown = (result: CallResult) => JSON.stringify(answerOf(result.structuredContent));

  it('fits its JSON within max_chars as the text fits, from 2,000 characters up', async () => {
    for (const name of ['pom.xml', 'docbook-chapter.xml', 'atom.xml', 'icon.svg.xml']) {
      for (const max_chars of [2_000, DEFAULT_INSPECT_CHARS, 30_000]) {
        const result = await call('xml_inspect', { xml: fixture(name), max_chars });
        expect(text(result).length).toBeLessThanOrEqual(max_chars);
        expect(shown(result).length).toBeLessThanOrEqual(max_chars);
      }
    }
  });

  it('says in structuredContent what the text says: the bindings to pass, the legend, what was left out', async () => {
    const result = await call('xml_inspect', { xml: fixture('pom.xml'), max_chars: 2_000 });
    const structured = result.structuredContent as { notes: string[]; legend: string };
    const binding = structured.notes.find((note) => note.startsWith('Pass to xml_query as "namespaces"'));
    expect(binding).toContain('"http://maven.apache.org/POM/4.0.0"');
    expect(structured.notes).toContainEqual(
      expect.stringMatching(/^Elements in a default namespace need a prefix in XPath too: \/\/ns1:/),
    );
    expect(structured.notes.some((note) => /left out/.test(note))).toBe(true);
    expect(structured.legend).toMatch(/^outline: per distinct element path/);
    // Every note is a line of the text, in the same order.
    const lines = text(result).split('\n');
    const noted = structured.notes.filter((note) => !note.startsWith('Next time pass'));
    expect(lines.filter((line) => noted.includes(line))).toEqual(noted);
  });
});
