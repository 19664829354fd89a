import { describe, expect, it } from 'vitest';
import { inspect } from '../../src/xml/inspect.js';

describe('inspect', () => {
  it('counts depth from the root element as level 1, text one level deeper', () => {
    const result = inspect('<r><t>x</t></r>');
    expect(result.root).toBe('r');
    expect(result.maxDepth).toBe(3);
    expect(result.elements).toEqual([
      { name: 'r', count: 1 },
      { name: 't', count: 1 },
    ]);
  });

  it('counts every element name as written, past processing instructions', () => {
    const result = inspect(
      '<a:feed xmlns:a="urn:a" xmlns="urn:d"><entry x="1"><?pi?><a:t>x</a:t></entry><entry/><!--c--></a:feed>',
    );
    expect(result.root).toBe('a:feed');
    expect(result.elements).toEqual([
      { name: 'entry', count: 2 },
      { name: 'a:feed', count: 1 },
      { name: 'a:t', count: 1 },
    ]);
    expect(result.totalElements).toBe(4);
    expect(result.attributes).toBe(1);
    expect(result.maxDepth).toBe(4);
  });

  it('lists namespaces with their element counts and prefixes', () => {
    const result = inspect('<a:feed xmlns:a="urn:a" xmlns="urn:d"><entry/><a:t/><entry/></a:feed>');
    expect(result.namespaces).toEqual([
      { uri: 'urn:a', prefixes: ['a'], elements: 2 },
      { uri: 'urn:d', prefixes: [null], elements: 2 },
    ]);
  });

  it('reports no namespaces for a plain document', () => {
    expect(inspect('<r/>').namespaces).toEqual([]);
  });
});
