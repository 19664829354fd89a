import { describe, expect, it } from 'vitest';
import {
  answerOf,
  inMemoryClient,
  type CallResult as Result,
  textOf as text,
} from './support/in-memory-server.js';

/* The answers a model reads (docs/behaviour.md §2), through the SDK's in-memory client. */

const { call } = inMemoryClient('answers-test', { cacheDocuments: true });
const answer = (result: Result) => answerOf(result.structuredContent);

const ATOM = 'http://www.w3.org/2005/Atom';
const atom = `<feed xmlns="${ATOM}"><title>F</title><entry><title>A</title><summary>one
two</summary></entry><entry><title>B</title><summary>three</summary></entry></feed>`;
const svg =
  '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><use xlink:href="#a"/></svg>';

describe('an empty answer that explains itself', () => {
  it('keeps count 0, and says how to ask in the text and in structuredContent alike', async () => {
    const result = await call('xml_query', { xml: atom, xpath: 'count(//entry)' });
    expect(result.isError).toBeFalsy();
    const hint = `The document has no \`entry\` elements in no namespace: they are in ${ATOM}, and an unprefixed name in XPath 1.0 means no namespace, even under a default namespace. So pass "namespaces": {"a":"${ATOM}"} and write \`count(//a:entry)\`.`;
    expect(answer(result)).toEqual({ type: 'number', count: 1, values: ['0'], notes: [hint] });
    expect(text(result)).toBe(`0\n${hint}`);
    const empty = await call('xml_query', { xml: atom, xpath: '//entry' });
    expect(answer(empty)).toMatchObject({ type: 'node-set', count: 0, values: [] });
    expect(answer(empty).notes).toEqual([expect.stringMatching(/write `\/\/a:entry`\.$/)]);
    expect(text(empty)).toMatch(/^No nodes matched `\/\/entry`\.\n.*write `\/\/a:entry`\.$/);
  });

  it('answers the advice it gives', async () => {
    const advised = await call('xml_query', {
      xml: atom,
      xpath: 'count(//a:entry)',
      namespaces: { a: ATOM },
    });
    expect(text(advised)).toBe('2');
  });

  it('gives the binding of a prefix the document declares only for attributes', async () => {
    const result = await call('xml_query', { xml: svg, xpath: '//@xlink:href' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'Prefix `xlink` is not bound: the document declares it as http://www.w3.org/1999/xlink, so pass "namespaces": {"xlink":"http://www.w3.org/1999/xlink"}.',
    );
  });
});

describe('an empty answer to a value the field does not hold', () => {
  it('keeps the answer and says what the field holds, most frequent first', async () => {
    const rules =
      '<rules><layout><name>de</name><iso639Id>deu</iso639Id></layout><layout><name>us</name><iso639Id>eng</iso639Id></layout><layout><name>gb</name><iso639Id>eng</iso639Id></layout></rules>';
    const result = await call('xml_query', { xml: rules, xpath: 'count(//layout[iso639Id="ger"])' });
    expect(result.isError).toBeFalsy();
    const hint =
      'No `iso639Id` is "ger". What `iso639Id` holds (2 distinct of 3), most frequent first: eng×2 deu×1.';
    expect(answer(result)).toEqual({ type: 'number', count: 1, values: ['0'], notes: [hint] });
    expect(text(result)).toBe(`0\n${hint}`);
  });
});

describe('an empty answer to a value the document pads with whitespace', () => {
  const pom =
    '<project><dependency><artifactId>junit</artifactId><scope> test </scope></dependency></project>';

  it('keeps the answer, says why `=` missed, and the expression it gives answers', async () => {
    const result = await call('xml_query', { xml: pom, xpath: "//dependency[scope='test']/artifactId" });
    expect(result.isError).toBeFalsy();
    const hint =
      "The document has 1 `scope` value that is 'test' only with extra whitespace around or inside it, and `=` compares strings exactly, whitespace included. So write `//dependency[normalize-space(scope)='test']/artifactId`.";
    expect(answer(result)).toEqual({ type: 'node-set', count: 0, values: [], notes: [hint] });
    expect(text(result)).toBe(`No nodes matched \`//dependency[scope='test']/artifactId\`.\n${hint}`);
    const advised = await call('xml_query', {
      xml: pom,
      xpath: "//dependency[normalize-space(scope)='test']/artifactId",
    });
    expect(text(advised)).toBe('junit');
  });
});

describe('values that start or end with a space', () => {
  const catalog =
    '<catalog><book status="available"/><book status=" available"/><book status="lent"/><book status="available "/></catalog>';

  it('are numbered and named in a note, with how to match them; the values stay as they are', async () => {
    const result = await call('xml_query', { xml: catalog, xpath: '//book/@status' });
    const note =
      '(Whitespace at the start or end of [2] " available", [4] "available ": kept as the document has it; `=` compares it exactly, `normalize-space()` trims it.)';
    expect(answer(result)).toEqual({
      type: 'node-set',
      count: 4,
      values: ['available', ' available', 'lent', 'available '],
      notes: [note],
    });
    expect(text(result)).toBe(
      `4 nodes matched \`//book/@status\`:\n[1] available\n[2]  available\n[3] lent\n[4] available \n${note}`,
    );
  });

  it('are quoted when one value is the whole answer, and leave other answers alone', async () => {
    const one = await call('xml_query', { xml: catalog, xpath: 'string(//book[4]/@status)' });
    expect(text(one)).toBe(
      'available \n(The value is "available ": whitespace at its start or end is kept as the document has it; `=` compares it exactly, `normalize-space()` trims it.)',
    );
    expect(text(await call('xml_query', { xml: catalog, xpath: '//book[3]/@status' }))).toBe('lent');
    const lines = await call('xml_query', { xml: '<r><p>\n  indented\n</p><p>b</p></r>', xpath: '//p' });
    expect(text(lines)).not.toContain('Whitespace at the start');
  });
});

describe('XPath 2.0+ functions', () => {
  it('are answered as XPath 3.1, and the answer says so', async () => {
    const result = await call('xml_query', { xml: '<r><p>3</p><p>7</p></r>', xpath: 'max(//p)' });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('7\n(evaluated as XPath 3.1)');
    expect(answer(result)).toEqual({
      type: 'number',
      count: 1,
      values: ['7'],
      xpath_version: '3.1',
      notes: ['(evaluated as XPath 3.1)'],
    });
    expect(text(await call('xml_query', { xml: '<r/>', xpath: 'fn:lower-case("A")' }))).toBe(
      'a\n(evaluated as XPath 3.1)',
    );
  });

  it('says that an xs:decimal is a double here when its rounding noise shows, in both channels', async () => {
    const xml = '<r><p>0.1</p><p>0.2</p><p>2.5</p></r>';
    const noisy = await call('xml_query', { xml, xpath: 'sum(//p[position() < 3] ! xs:decimal(.))' });
    const note =
      'xs:decimal is computed as a double here (exact to about 15 significant digits), so 0.30000000000000004 carries rounding noise: round it, e.g. round-half-to-even(…, 2) for cents.';
    expect(text(noisy)).toBe(`0.30000000000000004\n(evaluated as XPath 3.1)\n${note}`);
    expect(answer(noisy)).toMatchObject({
      values: ['0.30000000000000004'],
      notes: ['(evaluated as XPath 3.1)', note],
    });
    // Exact decimals, and doubles (which XPath 3.1 keeps as doubles), say nothing more.
    for (const xpath of ['sum(//p ! xs:decimal(.))', 'sum(//p ! number(.))']) {
      expect(answer(await call('xml_query', { xml, xpath })).notes, xpath).toEqual([
        '(evaluated as XPath 3.1)',
      ]);
    }
  });

  it('spells out an xs:double XPath 3.1 writes in exponent form, in both channels', async () => {
    const xml = '<r><t p="1394020000"/><t p="1326090000"/><t p="332639000"/><t p="12.5"/></r>';
    const spelled = (written: string, digits: string) =>
      `xs:double is written in exponent form from 10^6 up, as XPath 3.1 does: ${written} is ${digits}.`;
    const total = await call('xml_query', { xml, xpath: 'sum(//t/@p ! number(.))' });
    expect(text(total)).toBe(
      `3.0527490125E9\n(evaluated as XPath 3.1)\n${spelled('3.0527490125E9', '3052749012.5')}`,
    );
    const top = await call('xml_query', { xml, xpath: 'sum(//t[@p > 1000]/@p ! number(.))' });
    expect(answer(top)).toMatchObject({
      values: ['3.052749E9'],
      notes: ['(evaluated as XPath 3.1)', spelled('3.052749E9', '3052749000')],
    });
    // Below 10^6, and XPath 1.0's numbers, are digits already: nothing more is said.
    for (const xpath of ['sum(//t/@p[. < 1000] ! number(.))', 'sum(//t/@p)']) {
      expect(answer(await call('xml_query', { xml, xpath })).notes ?? [], xpath).not.toContainEqual(
        expect.stringContaining('exponent'),
      );
    }
  });

  it('answers paths libxml2 selects for XPath 3.1 as 3.1 does, in every output form (ADR 0055)', async () => {
    const xml = `<c:catalog xmlns:c="urn:c"><c:r k="a"><p>10</p></c:r><c:r k="b"><p>60</p></c:r><c:r k="a"><p>70</p></c:r></c:catalog>`;
    const namespaces = { c: 'urn:c' };
    const grouped = await call('xml_query', {
      xml,
      namespaces,
      xpath: "for $k in distinct-values(//c:r/@k) return $k || '=' || count(//c:r[@k = $k])",
    });
    expect(answer(grouped)).toMatchObject({ type: 'sequence', count: 2, values: ['a=2', 'b=1'] });
    const top = await call('xml_query', {
      xml,
      namespaces,
      xpath: '//c:r[p > 50] => reverse()',
      output: 'paths',
    });
    expect(answer(top)).toMatchObject({
      type: 'node-set',
      count: 2,
      values: ['/c:catalog/c:r[3]', '/c:catalog/c:r[2]'],
      xpath_version: '3.1',
    });
    // A value XPath 1.0 reads as NaN: evaluated as written, and fails as XPath 3.1 does.
    const odd = await call('xml_query', {
      xml: '<d><r><p>10</p></r><r><p>n/a</p></r></d>',
      xpath: 'count(//r[p > 5]) => xs:integer()',
    });
    expect(odd.isError).toBe(true);
    expect(text(odd)).toMatch(
      /^The expression `count\(\/\/r\[p > 5\]\) => xs:integer\(\)` could not be evaluated as XPath 3\.1: FORG0001/,
    );
    expect(text(odd)).not.toContain('oxml-mcp');
  });

  it('computes values per node of a selected path as XPath 3.1 does, its errors kept (ADR 0055)', async () => {
    const xml =
      '<d><line><qty>2</qty><price>1.25</price></line><line><qty>3</qty><price> 10 </price></line></d>';
    const total = await call('xml_query', { xml, xpath: 'sum(//line ! (qty * price))' });
    expect(answer(total)).toMatchObject({ type: 'number', values: ['32.5'], xpath_version: '3.1' });
    const counts = await call('xml_query', { xml, xpath: '//line ! count(price)' });
    expect(answer(counts)).toMatchObject({ count: 2, values: ['1', '1'], xpath_version: '3.1' });
    // Two prices where number() takes one: XPath 3.1's error, in the user's words.
    const two = await call('xml_query', {
      xml: '<d><line><price>1</price><price>2</price></line></d>',
      xpath: 'sum(//line ! number(price))',
    });
    expect(two.isError).toBe(true);
    expect(text(two)).toMatch(
      /^The expression `sum\(\/\/line ! number\(price\)\)` could not be evaluated as XPath 3\.1: XPTY0004/,
    );
    expect(text(two)).not.toContain('oxml-mcp');
  });

  it('answers a predicate that reads no focus and a count of distinct values as written (ADR 0055, addendum 4)', async () => {
    const xml = '<g><e n="info"/><e n="para"/><e n="info"/><e n="title"/><e n="para"/><e n="info"/></g>';
    const most = await call('xml_query', {
      xml,
      xpath:
        "let $n := //e/@n ! string(.), $d := distinct-values($n), $c := $d ! count(index-of($n, .)) return $d[index-of($c, max($c))[1]] || ' ' || max($c) || ' of ' || count(distinct-values(//e/@n))",
    });
    expect(answer(most)).toMatchObject({ type: 'string', values: ['info 3 of 3'], xpath_version: '3.1' });
    // An error in a hoisted predicate is told in the user's words.
    const unbound = await call('xml_query', { xml, xpath: 'let $d := //e return $d[count($missing)]' });
    expect(unbound.isError).toBe(true);
    expect(text(unbound)).toContain('XPST0008');
    expect(text(unbound)).not.toContain('oxml-');
  });

  it('formats numbers with format-number: fixed decimals, thousands, a refused picture told why (ADR 0056)', async () => {
    const xml = '<r><p v="1234.5"/><p v="9.4"/><p v="0.125"/></r>';
    const formatted = await call('xml_query', { xml, xpath: "//p ! format-number(@v, '#,##0.00')" });
    expect(answer(formatted)).toMatchObject({ values: ['1,234.50', '9.40', '0.12'], xpath_version: '3.1' });
    const share = await call('xml_query', { xml, xpath: "format-number(sum(//p/@v) div 2000, '0.0%')" });
    expect(text(share)).toBe('62.2%\n(evaluated as XPath 3.1)');
    const wrong = await call('xml_query', { xml, xpath: "format-number(1, '0.0.0')" });
    expect(wrong.isError).toBe(true);
    expect(text(wrong)).toContain(
      'FODF1310: The picture "0.0.0" of format-number is not valid: it has more than one "."',
    );
  });

  it('says what to write instead of a function neither XPath here has', async () => {
    const result = await call('xml_query', {
      xml: '<r><p>3.14159</p></r>',
      xpath: "format-date(xs:date(//p), '[D]/[M]')",
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('XPST0017');
    expect(text(result)).toContain(
      '`format-date()`: year-from-date(), month-from-date() and day-from-date() give the parts',
    );
  });
});

describe('the text of an answer', () => {
  it('never splits a surrogate pair when it quotes a long padded value in its note (issue 24)', async () => {
    // Cut at 28 characters from each end: each cut falls inside an emoji.
    const value = ` ${'a'.repeat(26)}😀${'b'.repeat(40)}😀${'c'.repeat(26)} `;
    const result = await call('xml_query', { xml: `<r><v>${value}</v></r>`, xpath: 'string(//v)' });
    expect(text(result)).toContain('(The value is');
    expect(text(result).isWellFormed()).toBe(true);
    expect(text(result)).not.toMatch(/\\ud83d|\\ude00/);
  });

  it('states the count of a multi-node answer, one value a line', async () => {
    const result = await call('xml_query', { xml: '<r><t>a</t><t>b</t></r>', xpath: '//t' });
    expect(text(result)).toBe('2 nodes matched `//t`:\na\nb');
    expect(answer(result)).toEqual({ type: 'node-set', count: 2, values: ['a', 'b'] });
    expect(text(await call('xml_query', { xml: '<r><t>a</t></r>', xpath: '//t' }))).toBe('a');
  });

  it('numbers the values when one spans lines or is empty, so each stays apart', async () => {
    const result = await call('xml_query', { xml: atom, xpath: '//a:summary', namespaces: { a: ATOM } });
    expect(text(result)).toBe('2 nodes matched `//a:summary`:\n[1] one\ntwo\n[2] three');
    const gaps = await call('xml_query', { xml: '<r><t>a</t><t/></r>', xpath: '//t' });
    expect(text(gaps)).toBe('2 nodes matched `//t`:\n[1] a\n[2] ');
  });

  it('says an empty string in words, as it does an empty node-set', async () => {
    const result = await call('xml_query', { xml: '<r><t/></r>', xpath: 'string(//t)' });
    expect(text(result)).toBe('`string(//t)` is the empty string.');
    expect(answer(result)).toEqual({ type: 'string', count: 1, values: [''] });
  });

  it('keeps the count exact and says what was cut', async () => {
    const result = await call('xml_query', { xml: `<r>${'<t>x</t>'.repeat(1500)}</r>`, xpath: '//t' });
    expect(text(result)).toMatch(/^1500 nodes matched `\/\/t`:\nx\n/);
    expect(text(result)).toContain('Showing 1000 of 1500 values (500 left out)');
  });
});

describe('a document argument that is a path or URL', () => {
  const sentence = "pass the document's text, not its path or URL; this server never opens files.";
  it.each([
    ['xml_query', { xml: '/home/me/feed.xml', xpath: '//entry' }, 'xml'],
    ['xml_inspect', { xml: 'https://example.org/feed.atom' }, 'xml'],
    ['xml_check', { xml: 'C:\\data\\pom.xml' }, 'xml'],
    ['xml_format', { xml: './pom.xml' }, 'xml'],
    ['xml_validate', { xml: 'order.xml', xsd: '<xs:schema/>' }, 'xml'],
    ['xml_validate', { xml: '<a/>', xsd: 'file:///schemas/order.xsd' }, 'xsd'],
  ])('is refused by %s, naming the argument', async (tool, args, argument) => {
    const result = await call(tool, args);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(`The \`${argument}\` argument looks like a path or URL`);
    expect(text(result)).toContain(sentence);
  });

  it('leaves text that is no path to the parser', async () => {
    const result = await call('xml_check', { xml: 'just some words' });
    expect(text(result)).toContain('not well-formed');
  });
});

describe('arguments sent as JSON text', () => {
  it('reads namespaces sent as the JSON text of an object', async () => {
    const result = await call('xml_query', {
      xml: atom,
      xpath: 'count(//a:entry)',
      namespaces: `{"a": "${ATOM}"}`,
    });
    expect(text(result)).toBe('2');
  });

  it('asks for an object when the text holds none', async () => {
    for (const namespaces of ['a=urn:x', '["urn:x"]', '{"__proto__": "urn:x"}']) {
      const result = await call('xml_query', { xml: atom, xpath: 'count(//a:entry)', namespaces });
      expect(result.isError).toBe(true);
      expect(text(result)).toBe('The `namespaces` argument of xml_query must be an object, not a string.');
    }
  });

  it('reads an indent sent as a numeric string, and still bounds it', async () => {
    expect(text(await call('xml_format', { xml: '<a><b/></a>', indent: '2' }))).toBe('<a>\n  <b/>\n</a>');
    expect(text(await call('xml_format', { xml: '<a><b/></a>' }))).toBe('<a><b/></a>');
    const tooDeep = await call('xml_format', { xml: '<a/>', indent: '99' });
    expect(tooDeep.isError).toBe(true);
    expect(text(tooDeep)).toContain('indent');
    expect(text(await call('xml_format', { xml: '<a/>', indent: 'two' }))).toBe(
      'The `indent` argument of xml_format must be a number, not a string.',
    );
  });
});

describe('arguments a model gets wrong', () => {
  it('refuses an argument the tool does not have, naming the one meant', async () => {
    const query = await call('xml_query', { xml: '<r/>', query: 'count(/r)' });
    expect(query.isError).toBe(true);
    expect(text(query)).toBe(
      'xml_query has no argument `query`; did you mean `xpath`? Its arguments are `xml`, `document`, `xpath`, `namespaces`, `output`, `max_chars`.',
    );
    const namespace = await call('xml_query', {
      xml: '<r/>',
      xpath: 'count(//a:r)',
      namespace: { a: 'urn:a' },
    });
    expect(text(namespace)).toContain('no argument `namespace`; did you mean `namespaces`?');
    expect(text(await call('xml_check', { xml: '<r/>', strict: true }))).toBe(
      'xml_check has no argument `strict`. Its arguments are `xml`, `document`.',
    );
  });

  it('says a text sent as a handle belongs in the text argument', async () => {
    const result = await call('xml_query', { document: '<r><a/></r>', xpath: 'count(//a)' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      "The `document` argument takes the handle an earlier answer gave (`d_…`), and this looks like the document's text itself: pass it as `xml` instead.",
    );
    const schema = await call('xml_validate', { xml: '<r/>', schema: '<!ELEMENT r EMPTY>' });
    expect(text(schema)).toBe(
      "The `schema` argument takes the handle an earlier answer gave (`d_…`), and this looks like the schema's text itself: pass it as `xsd` instead.",
    );
  });

  it('holds no schema handle for a text that is no usable schema, and keeps the document', async () => {
    const compact = await call('xml_validate', { xml: '<r/>', xsd: 'element r { empty }' });
    expect(compact.isError).toBe(true);
    expect(text(compact)).toContain('RELAX NG compact syntax');
    const lines = (compact.content as Array<{ text: string }>).map((block) => block.text);
    expect(lines.at(-1)).toMatch(/^document: d_[\w-]{22} \(next time pass this as `document`/);
    expect(lines.at(-1)).not.toContain('schema:');
  });
});
