/**
 * What one XPath 3.1 call leaves in a worker (issue 33 F1, ADR 0048): fontoxpath kept every
 * compiled expression and every regular expression for the worker's life, so distinct expressions
 * filled the JavaScript heap the next calls needed. Measured here on this process's heap after a
 * full collection, as the engine workers run the same code.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { query } from '../../../src/engine/query/query.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MIB = 1024 * 1024;

function heapAfterCollection(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** A distinct XPath 3.1 expression of ~1,900 characters, as a model writing long expressions sends. */
function longExpression(seed: number): string {
  const terms: string[] = [];
  for (let k = 0; terms.join(' + ').length < 1900; k++) terms.push(`($s * ${k} + string-length('x${k}'))`);
  return `let $s := ${seed} return ${terms.join(' + ')}`;
}

describe('XPath 3.1 state left after a call', () => {
  it('keeps neither the compiled expressions nor the patterns of earlier calls', () => {
    const doc = '<r><k>ab</k></r>';
    query(doc, longExpression(0));
    const before = heapAfterCollection();
    for (let seed = 1; seed <= 200; seed++) query(doc, longExpression(seed));
    // 250 distinct patterns of ~3,500 states each.
    expect(query(doc, "count((1501 to 1750)[matches('ab', 'a{1,' || . || '}b')])").values).toEqual(['250']);
    const kept = heapAfterCollection() - before;
    // Before the fix: ~60 MiB for the expressions and ~195 MiB for the patterns. The bound is
    // what the pattern cache may still hold (16 patterns of ~0.8 MiB) and room for the test's own.
    expect(kept / MIB).toBeLessThan(40);
  });
});
