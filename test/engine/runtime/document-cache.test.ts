import type { XmlDocument } from 'libxml2-wasm';
import { describe, expect, it } from 'vitest';
import { documentPointer } from '../../../src/engine/libxml2/tree.js';
import { parseDocument } from '../../../src/engine/parse.js';
import { queryDocument } from '../../../src/engine/query/query.js';
import { DocumentCache } from '../../../src/engine/runtime/document-cache.js';

const bytes = (text: string) => new TextEncoder().encode(text);

function counting() {
  const parsed: XmlDocument[] = [];
  return {
    parsed,
    parse: (source: Uint8Array) => () => {
      const doc = parseDocument(source, 'query');
      parsed.push(doc);
      return doc;
    },
  };
}

const count = (doc: XmlDocument) => queryDocument(doc, 'count(//a)').values[0];

describe('DocumentCache', () => {
  it('parses a repeated document once for the same client', () => {
    const cache = new DocumentCache(1024);
    const { parsed, parse } = counting();
    const source = bytes('<r><a/><a/></r>');
    expect(cache.use('c1', 'query', source, parse(source), count)).toBe('2');
    expect(cache.use('c1', 'query', bytes('<r><a/><a/></r>'), parse(source), count)).toBe('2');
    expect(parsed).toHaveLength(1);
    cache.clear();
  });

  it('never serves one client the document another client sent', () => {
    const cache = new DocumentCache(1024);
    const { parsed, parse } = counting();
    const source = bytes('<r><a/></r>');
    cache.use('c1', 'query', source, parse(source), count);
    cache.use('c2', 'query', source, parse(source), count);
    expect(parsed).toHaveLength(2);
    cache.clear();
  });

  it('tells documents apart by content', () => {
    const cache = new DocumentCache(1024);
    const { parse } = counting();
    const one = bytes('<r><a/></r>');
    const two = bytes('<r><a/><a/></r>');
    expect(cache.use('c', 'query', one, parse(one), count)).toBe('1');
    expect(cache.use('c', 'query', two, parse(two), count)).toBe('2');
    cache.clear();
  });

  it('compares the whole text: same length, a difference where no fingerprint looks', () => {
    const cache = new DocumentCache(1 << 20);
    const { parsed, parse } = counting();
    const text = `<r>${'<a/>'.repeat(25_000)}</r>`;
    // The fingerprint samples the head, the tail and every (length / 1024)th byte; change a
    // byte in the middle that is none of those.
    const stride = Math.floor(text.length / 1024);
    let at = Math.floor(text.length / 2);
    while (at % stride === 0 || text[at] !== 'a') at++;
    const one = bytes(text);
    const two = bytes(`${text.slice(0, at)}b${text.slice(at + 1)}`);
    expect(two.byteLength).toBe(one.byteLength);
    expect(cache.use('c', 'query', one, parse(one), count)).toBe('25000');
    expect(cache.use('c', 'query', two, parse(two), count)).toBe('24999');
    expect(cache.use('c', 'query', bytes(text), parse(one), count)).toBe('25000');
    expect(parsed).toHaveLength(3);
    expect(cache.size).toBe(1);
    cache.clear();
  });

  it('disposes the least recently used documents to stay within its byte bound', () => {
    const source = (n: number) => bytes(`<r>${'<a/>'.repeat(n)}</r>`.padEnd(100, ' '));
    const cache = new DocumentCache(250);
    const { parsed, parse } = counting();
    for (const n of [1, 2, 3]) cache.use('c', 'query', source(n), parse(source(n)), count);
    expect(cache.size).toBe(2);
    expect(documentPointer(parsed[0] as XmlDocument)).toBe(0);
    expect(count(parsed[2] as XmlDocument)).toBe('3');
    cache.clear();
  });

  it('frees a client’s documents when it is forgotten, and does not keep an over-large one', () => {
    const cache = new DocumentCache(64);
    const { parse } = counting();
    const small = bytes('<r><a/></r>');
    cache.use('c', 'query', small, parse(small), count);
    cache.use('other', 'query', small, parse(small), count);
    cache.forget('c');
    expect(cache.size).toBe(1);
    const large = bytes(`<r>${'<a/>'.repeat(40)}</r>`);
    expect(cache.use('c', 'query', large, parse(large), count)).toBe('40');
    expect(cache.size).toBe(1);
    cache.clear();
  });

  it('frees its large documents, whoever sent them, and keeps the small ones', () => {
    // Large here: 100 bytes or more.
    const cache = new DocumentCache(1024, 100);
    const { parsed, parse } = counting();
    const large = (n: number) => bytes(`<r>${'<a/>'.repeat(n)}</r>`.padEnd(120, ' '));
    const small = bytes('<r><a/></r>');
    cache.use('c', 'query', small, parse(small), count);
    cache.use('c', 'query', large(1), parse(large(1)), count);
    cache.use('other', 'query', large(2), parse(large(2)), count);
    expect(cache.size).toBe(3);
    cache.releaseLarge();
    expect(documentPointer(parsed[1] as XmlDocument)).toBe(0);
    expect(documentPointer(parsed[2] as XmlDocument)).toBe(0);
    expect(cache.size).toBe(1);
    // The small one is still cached: a repeat parses nothing.
    expect(cache.use('c', 'query', small, parse(small), count)).toBe('1');
    expect(parsed).toHaveLength(3);
    cache.clear();
  });
});
