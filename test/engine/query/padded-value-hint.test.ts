import { describe, expect, it } from 'vitest';
import { MAX_PADDED_VALUE_PROBES } from '../../../src/engine/query/padded-value-hint.js';
import { query, queryAll } from '../../../src/engine/query/query.js';
import { explainingQueries } from '../../support/explained-query.js';

const POM_NS = 'http://maven.apache.org/POM/4.0.0';
const dependencies = (ns = '') =>
  `<project${ns}><dependencies><dependency type=" jar"><artifactId>junit</artifactId><scope> test </scope></dependency><dependency><artifactId>core</artifactId><scope>compile</scope></dependency><dependency><artifactId>mockito</artifactId><scope>
    test</scope></dependency></dependencies></project>`;
const pom = dependencies();

const explained = explainingQueries();

describe('an empty answer to a value with whitespace around it', () => {
  it('counts the padded values, says why `=` missed them, and writes the comparison that finds them', () => {
    const result = explained(pom, "//dependency[scope='test']/artifactId");
    expect(result).toMatchObject({ type: 'node-set', count: 0, values: [] });
    expect(result.hint).toBe(
      "The document has 2 `scope` values that are 'test' only with extra whitespace around or inside them, and `=` compares strings exactly, whitespace included. So write `//dependency[normalize-space(scope)='test']/artifactId`.",
    );
    expect(query(pom, "//dependency[normalize-space(scope)='test']/artifactId").values).toEqual([
      'junit',
      'mockito',
    ]);
  });

  it('rewrites attributes, prefixed names and each comparison the document pads, in any quotes', () => {
    expect(explained(pom, "count(//dependency[@type='jar'])").hint).toContain(
      "So write `count(//dependency[normalize-space(@type)='jar'])`.",
    );
    const both = explained(pom, '//dependency[ scope = "test" and @type="jar"]');
    expect(both.hint).toContain('2 `scope` values that are "test"');
    expect(both.hint).toContain('and 1 `@type` value that is "jar"');
    expect(both.hint).toContain(
      'So write `//dependency[ normalize-space(scope) = "test" and normalize-space(@type)="jar"]`.',
    );
    const namespaced = dependencies(` xmlns="${POM_NS}"`);
    const prefixed = explained(namespaced, "//p:dependency[p:scope='test']/p:artifactId", { p: POM_NS });
    expect(prefixed.hint).toContain(
      "So write `//p:dependency[normalize-space(p:scope)='test']/p:artifactId`.",
    );
  });

  it('after an answer that found something, says what it left out and how to include it', () => {
    const result = explained(pom, "//dependency[scope='test' or scope='compile']/artifactId");
    expect(result.values).toEqual(['core']);
    expect(result.hint).toBe(
      "Not counted above: 2 `scope` values that are 'test' only with extra whitespace around or inside them, because `=` compares strings exactly, whitespace included. To include them, write `//dependency[normalize-space(scope)='test' or scope='compile']/artifactId`.",
    );
  });

  it('beside an answer, probes a large document only as far as its step budget, and says nothing', () => {
    const records = `<r>${'<dependency><scope>compile</scope></dependency>'.repeat(100_000)}<dependency><scope> test </scope></dependency></r>`;
    const answered = explained(records, "count(//dependency[scope='compile'] | //dependency[scope='test'])");
    expect(answered.values).toEqual(['100000']);
    expect(answered.hint).toBeUndefined();
    expect(explained(records, "//dependency[scope='test']").hint).toContain('1 `scope` value');
  });

  it('says nothing of white space when no value is the literal even trimmed, or the answer is not empty', () => {
    // What the field does hold is field-values-hint.ts's to say.
    expect(explained(pom, "//dependency[scope='provided']").hint).toMatch(/^No `scope` is "provided"\. What/);
    expect(explained(pom, "//dependency[scope='compile']/artifactId")).toEqual({
      type: 'node-set',
      count: 1,
      values: ['core'],
    });
  });

  it('rewrites no operand longer than one step, nor a literal with whitespace of its own', () => {
    for (const xpath of [
      "//dependency[./scope='test']",
      "//scope[.='test']",
      "//dependency[scope=' test']",
    ]) {
      const hint = explained(pom, xpath).hint;
      expect(hint, xpath).not.toContain('So write');
      // The spellings the field does have are named instead (field-values-hint.ts).
      expect(hint, xpath).toContain('but the document has " test "×1 "\\n    test"×1');
    }
  });

  it('lets a name in another namespace explain the answer first', () => {
    const hint = explained(dependencies(` xmlns="${POM_NS}"`), "//dependency[scope='test']").hint;
    expect(hint).toContain(`they are in ${POM_NS}`);
    expect(hint).not.toContain('whitespace');
  });

  it('probes leaf elements only, so elements nested in each other never cost their whole text', () => {
    // `x` holds an element: its string-value is everything under it, which the probe never builds.
    const holding = '<r><y><x> 1 <b/></x></y><y><x> 1 </x></y></r>';
    expect(explained(holding, "count(//y[x='1'])").hint).toContain(
      "1 `x` value that is '1' only with extra whitespace",
    );
    expect(explained('<r><y><x> 1 <b/></x></y></r>', "count(//y[x='1'])").hint).toBeUndefined();
  });

  it('spends at most a few probes on one batch, whatever its size', () => {
    const entries = Array.from({ length: 8 }, (_, i) => `//dependency[scope='test'][${i + 1}]/nothing`);
    const answered = queryAll(pom, entries);
    const hinted = answered.map((entry) => 'hint' in entry && entry.hint !== undefined);
    // Each entry spends two (the padded values, then the field's other spellings): the first half.
    expect(hinted).toEqual(Array.from({ length: 8 }, (_, i) => i < MAX_PADDED_VALUE_PROBES / 2));
  });
});
