/**
 * Issue 24, H2: the WebAssembly heap is bounded while a call runs. An expression that would
 * build gigabytes (libxml2's node-set `=` keeps the string-value of every node it compares, and
 * nested elements repeat their descendants' text) fails that call as out of memory, never as a
 * syntax error; the worker is replaced and the next call is served. A low ceiling stands in for
 * the real one, so the test needs tens of MiB, not gigabytes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EngineError } from '../../../src/engine/errors.js';
import { EnginePool } from '../../../src/engine/runtime/pool.js';

const MIB = 1024 * 1024;
const bytes = (text: string) => new TextEncoder().encode(text);
const chain = (name: string, depth: number, text: string) =>
  `<${name}>`.repeat(depth) + text + `</${name}>`.repeat(depth);
/**
 * Two 60-deep chains whose texts agree but for their last character, so libxml2 cannot tell them
 * apart by hash: `//a = //b` builds 60 × 200 KB per side, ~24 MiB. Fresh bytes per call: the pool
 * transfers a document's buffer to the worker.
 */
const CHAINS = `<r>${chain('a', 60, `${'x'.repeat(200_000)}1`)}${chain('b', 60, `${'x'.repeat(200_000)}2`)}</r>`;

let pool: EnginePool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('the WebAssembly heap ceiling', () => {
  it('answers an expression that would pass it with an out-of-memory error naming the budget, then serves on', async () => {
    pool = new EnginePool({ size: 1, engineLimits: { heapCeilingBytes: 20 * MIB } });
    const failure = await pool.run('query', { xml: bytes(CHAINS), xpath: '//a = //b', namespaces: {} }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(EngineError);
    expect((failure as EngineError).code).toBe('out-of-memory');
    expect((failure as EngineError).message).toMatch(
      /^The call ran out of its memory budget \(20 MiB of engine heap\)/,
    );
    expect((failure as EngineError).message).not.toContain('syntax');
    await expect(
      pool.run('query', { xml: bytes(CHAINS), xpath: 'count(//a)', namespaces: {} }),
    ).resolves.toMatchObject({
      values: ['60'],
    });
  });

  it('leaves the same expression its right answer when the heap may hold it', async () => {
    pool = new EnginePool({ size: 1, engineLimits: { heapCeilingBytes: 64 * MIB } });
    await expect(
      pool.run('query', { xml: bytes(CHAINS), xpath: '//a = //b', namespaces: {} }),
    ).resolves.toMatchObject({
      type: 'boolean',
      values: ['false'],
    });
  });

  it('bounds every operation, not only queries: a format past the ceiling fails the same way', async () => {
    pool = new EnginePool({ size: 1, engineLimits: { heapCeilingBytes: 20 * MIB } });
    const wide = bytes(`<r>${'<a><b><c>t</c></b></a>'.repeat(200_000)}</r>`);
    const failure = await pool.run('format', { xml: wide, indent: 16, emptyElements: 'self-closing' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((failure as EngineError).code).toBe('out-of-memory');
    expect((failure as EngineError).message).toContain('a smaller `indent`');
  });
});
