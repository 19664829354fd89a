import type { XmlDocument } from 'libxml2-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentPointer, stringValue } from '../../../src/engine/libxml2/tree.js';
import { hoistInvariantPredicates } from '../../../src/engine/libxml2/xpath31-invariant-predicates.js';
import {
  evaluateXPath31Counted,
  type Xpath31Item,
  Xpath31View,
} from '../../../src/engine/libxml2/xpath31-view.js';
import { parseDocument } from '../../../src/engine/parse.js';

/* Predicates that read no focus, evaluated once per filter (ADR 0055, addendum 4). */

describe('hoistInvariantPredicates: which predicates are evaluated once', () => {
  it('takes a predicate of variables, literals and calls that read only their arguments', () => {
    expect(hoistInvariantPredicates('let $c := (1, 3, 2) return $d[index-of($c, max($c))[1]]')).toBe(
      'let $c := (1, 3, 2) return (let $oxml-invariant-1 := (index-of($c, max($c))[1]\n) return $d[$oxml-invariant-1])',
    );
    // A parenthesized expression, a call, several sites, a call inside a path step.
    expect(
      hoistInvariantPredicates('(1 to 9)[count($s) + 1], reverse($s)[last() - 1], $a[xs:integer($i)]'),
    ).toBe(
      '(let $oxml-invariant-1 := (count($s) + 1\n) return (1 to 9)[$oxml-invariant-1]), reverse($s)[last() - 1], (let $oxml-invariant-2 := (xs:integer($i)\n) return $a[$oxml-invariant-2])',
    );
    expect(hoistInvariantPredicates('//a/text()[string-length($t) > 2]')).toBe(
      '//a/(let $oxml-invariant-1 := (string-length($t) > 2\n) return text()[$oxml-invariant-1])',
    );
  });

  it('leaves a predicate that reads the item it filters, or costs nothing again', () => {
    for (const expression of [
      '$d[. = max($c)]',
      '$d[string() = $k]',
      '$d[string-length() > count($c)]',
      '$d[position() = count($c)]',
      '$d[last()]',
      '$d[name = count($c)]',
      '$d[@id = count($c)]',
      '$d[count([1, .]) = 2]',
      '$d[$c ! (. + 1) = 2]',
      '$d[1]',
      '$d[$i]',
      '//item[count($c) = 2]',
      '$m?(1)[count($c)]',
      '$d[if (count($c)) then 1 else 2]',
      '$d[local:f($c)]',
      '$d[count($c) * 2]',
    ])
      expect(hoistInvariantPredicates(expression), expression).toBeNull();
  });

  it('reads a nested predicate as its own focus, and stays out of string literals', () => {
    expect(hoistInvariantPredicates('$d[count($c[. > 2]) = 1]')).toBe(
      '(let $oxml-invariant-1 := (count($c[. > 2]) = 1\n) return $d[$oxml-invariant-1])',
    );
    expect(hoistInvariantPredicates('"$d[count($c)]"')).toBeNull();
  });
});

describe('evaluateXPath31Counted with invariant predicates hoisted', () => {
  let doc: XmlDocument;
  beforeAll(() => {
    doc = parseDocument('<d><e n="a"/><e n="b"/><e n="a"/><e n="c"/><e n="a"/><e n="b"/></d>', 'query');
  });
  afterAll(() => doc.dispose());

  const answer = (expression: string, selectPaths: boolean) => {
    try {
      const found = evaluateXPath31Counted(
        documentPointer(doc),
        expression,
        {},
        {
          view: new Xpath31View(documentPointer(doc)),
          selectPaths,
        },
      );
      return found.items.map((item: Xpath31Item) =>
        item.kind === 'node' ? `node ${stringValue(item.node)}` : JSON.stringify(item),
      );
    } catch (error) {
      return (error as Error).message.split('\n')[0];
    }
  };

  it('answers as the expression written does: by position for a number, else by truth', () => {
    for (const expression of [
      'let $n := //e/@n ! string(.), $d := distinct-values($n), $c := $d ! count(index-of($n, .)) return $d[index-of($c, max($c))[1]]',
      'let $c := (3, 1) return (//e)[max($c)]/@n ! string()',
      'let $c := () return (//e)[exists($c)]',
      'let $c := (1, 2) return (10, 20, 30)[count($c) = 2]',
      'let $c := (1, 2) return (10, 20, 30)[index-of((5, 7, 2), count($c))]',
      // A sequence of numbers as a predicate: read alike either way.
      'let $c := (1, 2) return (10, 20, 30)[reverse($c)]',
      'for $i in (1, 2, 3) return (10, 20, 30)[min(($i, 2))]',
    ]) {
      const hoisted = hoistInvariantPredicates(expression) as string;
      expect(hoisted, expression).not.toBeNull();
      // The rewritten text itself, not a fallback to the written one after it failed.
      expect(answer(hoisted, false), expression).toEqual(answer(expression, false));
      expect(answer(expression, true), expression).toEqual(answer(expression, false));
    }
    // An empty filter never evaluates its predicate; fontoxpath may evaluate a constant `let` at
    // once, so the rewritten text fails where the written one does not, and the written one answers.
    const empty = 'let $c := (1, 2) return ()[xs:integer("x")]';
    expect(answer(hoistInvariantPredicates(empty) as string, false)).toMatch(/FORG0001/);
    expect(answer(empty, true)).toEqual([]);
    expect(answer('let $c := (3, 1) return (//e)[max($c)]/@n ! string()', true)).toEqual([
      JSON.stringify({ kind: 'atomic', type: 'xs:string', text: 'a' }),
    ]);
  });
});
