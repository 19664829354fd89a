import { describe, expect, it } from 'vitest';
import { initialize, initialized, runRaw } from './binary.js';

// A preload that, on the main thread only, registers a resolve hook refusing libxml2-wasm: the
// server answers anyway, so only the engine's workers load it
// (docs/adr/0025-libxml2-only-on-the-workers.md). The workers run the preload too, and skip it.
const HOOKS = `export async function resolve(specifier, context, next) {
  if (specifier === 'libxml2-wasm' || specifier.startsWith('libxml2-wasm/')) {
    throw Object.assign(new Error('blocked on the main thread by the test: ' + specifier), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}`;
const PRELOAD = `import { register } from 'node:module'; import { isMainThread } from 'node:worker_threads';
if (isMainThread) register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;
// Node.js 26 deprecates `module.register` (DEP0205) with a warning on stderr, which this test
// reads for the server's silence; the warning is the preload's own, so it alone is turned off.
// (`registerHooks`, its successor, is not in Node.js 20.)
const LIBXML2_BLOCKED_ON_MAIN = [
  '--disable-warning=DEP0205',
  '--import',
  `data:text/javascript,${encodeURIComponent(PRELOAD)}`,
];

const call = (id: number, name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

const XSD = '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a"/></xs:schema>';

describe('libxml2-wasm is loaded only on the engine workers, never on the main thread', () => {
  it('answers over stdio, every tool, when the main thread cannot load libxml2-wasm', async () => {
    const xml = '<a xml:lang="en"><b/><b/></a>';
    const run = await runRaw(
      [
        initialize(),
        initialized,
        call(1, 'xml_query', { xml, xpath: 'count(//b)' }),
        call(2, 'xml_inspect', { xml }),
        call(3, 'xml_check', { xml }),
        call(4, 'xml_format', { xml }),
        call(5, 'xml_validate', { xml, xsd: XSD }),
      ],
      [],
      LIBXML2_BLOCKED_ON_MAIN,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    for (const id of [1, 2, 3, 4, 5]) {
      const reply = run.replies.find((candidate) => candidate.id === id) as {
        result?: { isError?: boolean };
      };
      expect(reply?.result?.isError, `call ${id}`).not.toBe(true);
    }
    expect(run.replies.find((reply) => reply.id === 1)).toMatchObject({
      result: { content: [{ type: 'text', text: '2' }, { type: 'text' }] },
    });
  });
});
