import { describe, expect, it } from 'vitest';
import { initialize, initialized, runRaw } from './binary.js';

// Hooks that refuse @modelcontextprotocol/server-legacy, as if it were not installed: what
// starts anyway does not load it (docs/adr/0013-load-legacy-sse-on-demand.md). The built binary
// is a bundle (ADR 0030), where the package is code in a chunk, not a specifier: esbuild marks
// each module it copies with a `// node_modules/<package>/…` comment, so a module whose source
// holds the package's is refused as it loads.
const LEGACY = '@modelcontextprotocol/server-legacy';
const HOOKS = `const LEGACY = ${JSON.stringify(LEGACY)};
function blocked(what) {
  return Object.assign(new Error('blocked by the test: ' + what), { code: 'ERR_MODULE_NOT_FOUND' });
}
export async function resolve(specifier, context, next) {
  if (specifier.startsWith(LEGACY)) throw blocked(specifier);
  return next(specifier, context);
}
export async function load(url, context, next) {
  const loaded = await next(url, context);
  if (loaded.source && String(loaded.source).includes('node_modules/' + LEGACY + '/')) throw blocked(LEGACY + ' in ' + url);
  return loaded;
}`;
const PRELOAD = `import { register } from 'node:module'; register(${JSON.stringify(
  `data:text/javascript,${encodeURIComponent(HOOKS)}`,
)});`;
const WITHOUT_LEGACY_SSE = ['--import', `data:text/javascript,${encodeURIComponent(PRELOAD)}`];

const QUERY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'xml_query', arguments: { xml: '<a><b/><b/></a>', xpath: 'count(//b)' } },
});

describe('the legacy SSE package is loaded only for --transport sse', () => {
  it('answers a tools/call over stdio when the package cannot be loaded', async () => {
    const run = await runRaw([initialize(), initialized, QUERY], [], WITHOUT_LEGACY_SSE);
    expect(run.code).toBe(0);
    // The answer first; the document's handle follows it in a block of its own.
    expect(run.replies.find((reply) => reply.id === 1)).toMatchObject({
      result: { content: [{ type: 'text', text: '2' }, { type: 'text' }] },
    });
  });

  it('fails to start --transport sse when the package cannot be loaded', async () => {
    const run = await runRaw([], ['--transport', 'sse', '--port', '0'], WITHOUT_LEGACY_SSE);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('blocked by the test: @modelcontextprotocol/server-legacy');
  });
});
