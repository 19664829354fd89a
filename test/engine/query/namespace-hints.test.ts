import { describe, expect, it, vi } from 'vitest';
import { documentNames } from '../../../src/engine/libxml2/names.js';
import { operations } from '../../../src/engine/runtime/operations.js';
import { explainingQueries } from '../../support/explained-query.js';
import { engineError } from '../engine-error.js';

vi.mock('../../../src/engine/libxml2/names.js', async (original) => {
  const actual = await original<typeof import('../../../src/engine/libxml2/names.js')>();
  return { ...actual, documentNames: vi.fn(actual.documentNames) };
});

const ATOM = 'http://www.w3.org/2005/Atom';
const atom = `<feed xmlns="${ATOM}"><title>F</title>${'<entry><title>T</title></entry>'.repeat(3)}</feed>`;
const svg =
  '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><use xlink:href="#a"/><use xlink:href="#b"/></svg>';
const pom =
  '<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="x y"><dependencies><dependency/></dependencies></project>';

const explained = explainingQueries();
const utf8 = (text: string) => Buffer.from(text, 'utf8');

describe('empty answers that explain themselves', () => {
  it('says where an unprefixed name is, with the binding and the expression to write', () => {
    const result = explained(atom, 'count(//entry)');
    expect(result).toMatchObject({ type: 'number', count: 1, values: ['0'] });
    expect(result.hint).toContain(`they are in ${ATOM}`);
    expect(result.hint).toContain(`pass "namespaces": {"a":"${ATOM}"} and write \`count(//a:entry)\``);
  });

  it('rewrites every misplaced name of the expression, for every kind of empty answer', () => {
    for (const xpath of ['//entry/title', 'string(//entry/title)', 'boolean(//entry/title)']) {
      expect(explained(atom, xpath).hint).toContain('write `');
    }
    expect(explained(atom, '//entry/title').hint).toContain('write `//a:entry/a:title`');
    expect(explained(atom, 'number(//entry)').hint).toContain('`number(//a:entry)`');
  });

  it('keeps the answer exactly XPath 1.0 and adds nothing to one that found something', () => {
    const result = explained(atom, '//entry');
    expect({ ...result, hint: undefined }).toEqual({
      type: 'node-set',
      count: 0,
      values: [],
      hint: undefined,
    });
    expect(explained(atom, 'count(//a:entry)', { a: ATOM })).toEqual({
      type: 'number',
      count: 1,
      values: ['3'],
    });
    expect(explained(atom, '//a:title', { a: ATOM })).not.toHaveProperty('hint');
  });

  it('gives no hint when the name is nowhere in the document, or also in no namespace', () => {
    expect(explained(atom, '//nothing')).not.toHaveProperty('hint');
    expect(explained(`<r><entry/><x:entry xmlns:x="urn:x"/></r>`, '//entry[@id]')).not.toHaveProperty('hint');
  });

  it('explains namespaced attributes, keeping the bindings already passed', () => {
    const result = explained(svg, '//s:use/@href', { s: 'http://www.w3.org/2000/svg' });
    expect(result.values).toEqual([]);
    expect(result.hint).toContain(
      '`href` attributes in no namespace: they are in http://www.w3.org/1999/xlink',
    );
    expect(result.hint).toContain(
      '{"s":"http://www.w3.org/2000/svg","xlink":"http://www.w3.org/1999/xlink"} and write `//s:use/@xlink:href`',
    );
  });

  it('points out a bound URI that differs from the document’s only in case or a trailing slash', () => {
    for (const uri of ['http://www.w3.org/2005/atom', `${ATOM}/`, 'HTTP://WWW.W3.ORG/2005/ATOM/']) {
      const result = explained(atom, 'count(//a:entry)', { a: uri });
      expect(result.values).toEqual(['0']);
      expect(result.hint).toBe(
        `\`a\` is bound to ${uri}, but the document's namespace is ${ATOM}: namespace URIs match only exactly (case and trailing slash included). So pass "namespaces": {"a":"${ATOM}"}.`,
      );
    }
    expect(explained(atom, 'count(//a:*)', { a: `${ATOM}/` }).hint).toContain(`namespace is ${ATOM}`);
  });

  it('says which namespace a name is in when the bound one is wrong, or that it is in none', () => {
    const wrong = explained(atom, '//a:entry', { a: 'http://purl.org/atom/ns#' });
    expect(wrong.hint).toContain(
      `The document's \`entry\` elements are in ${ATOM}, not http://purl.org/atom/ns#.`,
    );
    expect(wrong.hint).toContain(`{"a":"${ATOM}"}`);
    const none = explained('<r><item/></r>', 'count(//c:item)', { c: 'urn:c' });
    expect(none.hint).toBe(
      "The document's `item` elements are in no namespace: write them without a prefix. So write `count(//item)`.",
    );
  });

  it("prefers the caller's prefix, then the document's, then a letter not bound elsewhere", () => {
    expect(explained(pom, '//dependency').hint).toContain('{"p":"http://maven.apache.org/POM/4.0.0"}');
    const own = explained('<x:r xmlns:x="urn:own"><x:item/></x:r>', '//item');
    expect(own.hint).toContain('{"x":"urn:own"} and write `//x:item`');
    const taken = explained(atom, '//entry', { a: 'urn:other' });
    expect(taken.hint).toContain(`{"a":"urn:other","ns1":"${ATOM}"} and write \`//ns1:entry\``);
  });
});

describe('an unbound prefix the document declares', () => {
  it('is answered with the binding, even for a namespace used only on attributes', () => {
    const error = engineError(() =>
      operations.query({ xml: utf8(pom), xpath: 'string(//@xsi:schemaLocation)', namespaces: {} }),
    );
    expect(error.code).toBe('unbound-prefix');
    expect(error.message).toBe(
      'Prefix `xsi` is not bound: the document declares it as http://www.w3.org/2001/XMLSchema-instance, so pass "namespaces": {"xsi":"http://www.w3.org/2001/XMLSchema-instance"}.',
    );
    const xlink = engineError(() =>
      operations.query({ xml: utf8(svg), xpath: '//@xlink:href', namespaces: { s: 'urn:s' } }),
    );
    expect(xlink.message).toContain('{"s":"urn:s","xlink":"http://www.w3.org/1999/xlink"}');
  });

  it('still points to xml_inspect when the document does not declare it', () => {
    const error = engineError(() =>
      operations.query({ xml: utf8(atom), xpath: '//a:entry', namespaces: {} }),
    );
    expect(error.code).toBe('unbound-prefix');
    expect(error.message).toContain('call xml_inspect');
  });

  it('goes through the worker operation, which adds the hint to an empty answer', () => {
    const result = operations.query({ xml: utf8(atom), xpath: 'count(//entry)', namespaces: {} });
    expect(result.values).toEqual(['0']);
    expect(result.hint).toContain('`count(//a:entry)`');
  });
});

describe('the cost and size of a hint', () => {
  it('reads the document only when the answer is empty', () => {
    vi.mocked(documentNames).mockClear();
    explained(atom, 'count(//a:entry)', { a: ATOM });
    explained(atom, '//a:title', { a: ATOM });
    expect(documentNames).not.toHaveBeenCalled();
    explained(atom, 'count(//entry)');
    expect(documentNames).toHaveBeenCalledTimes(1);
  });

  it('stays short on a document of many namespaces with long URIs', () => {
    const uri = (n: number) => `urn:${String(n).padStart(2000, 'x')}`;
    const xml = `<r>${Array.from({ length: 50 }, (_, n) => `<a xmlns="${uri(n)}"/><b${n} xmlns="${uri(n)}"/>`).join('')}</r>`;
    const many = explained(xml, Array.from({ length: 50 }, (_, n) => `//b${n}`).join(' | '));
    expect(many.values).toEqual([]);
    expect(many.hint === undefined || many.hint.length <= 8_000).toBe(true);
    const one = explained(`<r xmlns="urn:x">${'<a/>'.repeat(1000)}</r>`, `${'//a | '.repeat(300)}//a`);
    expect(one.hint).toContain('{"x":"urn:x"}');
    expect(one.hint?.match(/urn:x/g)).toHaveLength(2);
  });
});
