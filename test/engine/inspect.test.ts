import { describe, expect, it } from 'vitest';
import { inspect } from '../../src/engine/inspect.js';
import { MAX_INSPECT_NAME_CHARS, MAX_INSPECT_NAMES, MAX_INSPECT_NAMESPACES } from '../../src/limits.js';

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

describe('inspect within its budget', () => {
  it('lists the most frequent names up to the budget and gives the exact totals', () => {
    const names = Array.from({ length: 5000 }, (_, i) => `<n${i}/>`).join('');
    const result = inspect(`<r>${names}<n7/><n7/></r>`);
    expect(result.elements).toHaveLength(MAX_INSPECT_NAMES);
    expect(result.elements[0]).toEqual({ name: 'n7', count: 3 });
    expect(result.distinctElements).toBe(5001);
    expect(result.totalElements).toBe(5003);
    expect(result.truncated).toBe(true);
  });

  it('stops at the character budget when names are long', () => {
    const names = Array.from({ length: 50 }, (_, i) => `<n${i}${'x'.repeat(1000)}/>`).join('');
    const result = inspect(`<r>${names}</r>`);
    expect(result.elements.reduce((sum, { name }) => sum + name.length, 0)).toBeLessThanOrEqual(
      MAX_INSPECT_NAME_CHARS,
    );
    expect(result.elements.length).toBeGreaterThan(10);
    expect(result.distinctElements).toBe(51);
  });

  it('lists at most the budgeted namespaces, with their exact number', () => {
    const uses = Array.from({ length: 300 }, (_, i) => `<e xmlns="urn:${i}"/>`).join('');
    const result = inspect(`<r>${uses}</r>`);
    expect(result.namespaces).toHaveLength(MAX_INSPECT_NAMESPACES);
    expect(result.distinctNamespaces).toBe(300);
    expect(result.truncated).toBe(true);
  });

  it('adds no budget fields to an answer that fits', () => {
    const result = inspect('<r><a/><b/></r>');
    expect(result).not.toHaveProperty('truncated');
    expect(result).not.toHaveProperty('distinctElements');
  });
});
