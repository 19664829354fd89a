import { describe, expect, it } from 'vitest';
import { inspect } from '../../../src/engine/inspect/inspect.js';

describe("a name's line shows what its fields hold over its paths (ADR 0043)", () => {
  const pom = `<project><parent><artifactId>base</artifactId><version>9</version></parent>
    <artifactId>app</artifactId><version>1.0</version>
    <dependencies>${['junit:test', 'guava:compile', 'mockito:test', 'slf4j:']
      .map((d) => {
        const [id, scope] = d.split(':');
        return `<dependency><artifactId>${id}</artifactId>${scope ? `<scope>${scope}</scope>` : ''}</dependency>`;
      })
      .join('')}</dependencies>
    <build><plugins><plugin><artifactId>surefire</artifactId><version>3.0</version></plugin></plugins></build></project>`;

  it('merges the text of a name at several paths, keyed //name, the paths counted in the label', () => {
    const result = inspect(pom);
    expect(result.values['//artifactId']).toBe('7 distinct: base app junit guava mockito slf4j surefire');
    expect(result.values['//version']).toBe('3 distinct: 9 1.0 3.0');
    const at = result.elements.findIndex((element) => element.name === 'artifactId');
    expect(result.elementValues[at]).toEqual([
      'text (4 paths): 7 distinct: base app junit guava mockito slf4j surefire',
    ]);
  });

  it('gives no name values to a field at one path: its line in the outline shows it', () => {
    const result = inspect(pom);
    expect(result.values['/project/dependencies/dependency/scope']).toBe('test×2 compile×1');
    expect(result.values['//scope']).toBeUndefined();
    const scope = result.elements.findIndex((element) => element.name === 'scope');
    expect(result.elementValues[scope]).toEqual([]);
  });

  it('merges an attribute over the paths that carry it, and counts elements without text as empty', () => {
    const result = inspect('<r><a><t k="1">x</t><t k="2">y</t></a><b><t k="1"/><t k="1">x</t></b></r>');
    expect(result.values['//t/@k']).toBe('1×3 2×1');
    expect(result.values['//t']).toBe('x×2 y×1 ""×1');
  });

  it('leaves name values out when the budget is short, keeping the names', () => {
    const result = inspect(pom, { maxChars: 1_500 });
    expect(result.elements.map((element) => element.name)).toContain('artifactId');
    expect(result.values['//artifactId']).toBeUndefined();
  });
});
