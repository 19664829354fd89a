/**
 * XPath 3.1 (fontoxpath over libxml2's tree) with and without the document-order patch
 * (scripts/fontoxpath-patches.ts), against libxml2's XPath 1.0, on the bench documents.
 *
 *   npx tsx bench/xpath31-order.ts ['200 KB,2 MB,8 MiB'] [patched|unpatched|both]
 *
 * The measured code is bundled by esbuild as the server's is and run by plain Node, not through
 * tsx, whose module interop slows fontoxpath's hot loops (bench/bundle.ts).
 */
import { execFileSync } from 'node:child_process';
import { bundle } from './bundle.js';

const sizes = process.argv[2] ?? '200 KB,2 MB,8 MiB';
const which = process.argv[3] ?? 'both';

for (const patched of [false, true]) {
  if (which !== 'both' && (which === 'patched') !== patched) continue;
  const name = `oxml-bench-xpath31-order/${patched ? 'patched' : 'unpatched'}`;
  const entry = await bundle('bench/xpath31-order-run.ts', name, patched);
  execFileSync(process.execPath, [entry, sizes], {
    stdio: 'inherit',
    env: { ...process.env, OXML_BENCH_PATCHED: patched ? '1' : '0' },
  });
}
