/**
 * XPath 3.1 (fontoxpath over libxml2's tree) with and without the document-order patch
 * (scripts/fontoxpath-patches.ts), against libxml2's XPath 1.0, on the bench documents.
 *
 *   npx tsx bench/xpath31-order.ts ['200 KB,2 MB,8 MiB'] [patched|unpatched|both]
 *
 * The measured code is bundled by esbuild as the server's is and run by plain Node, not through
 * tsx, whose module interop slows fontoxpath's hot loops.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { fontoxpathOrderEsbuild } from '../scripts/fontoxpath-patches.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
// Inside the repository, so the bundles find libxml2-wasm (left external, as in dist/).
const OUT = join(ROOT, 'node_modules', '.cache', 'oxml-bench-xpath31-order');
const sizes = process.argv[2] ?? '200 KB,2 MB,8 MiB';
const which = process.argv[3] ?? 'both';

mkdirSync(OUT, { recursive: true });
for (const patched of [false, true]) {
  if (which !== 'both' && (which === 'patched') !== patched) continue;
  const outdir = join(OUT, patched ? 'patched' : 'unpatched');
  await build({
    absWorkingDir: ROOT,
    entryPoints: ['bench/xpath31-order-run.ts'],
    outdir,
    outExtension: { '.js': '.mjs' },
    // As in dist/: libxml2-wasm's import stays in a chunk loaded after captureWasmMemory() ran.
    splitting: true,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['libxml2-wasm'],
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    logLevel: 'warning',
    plugins: patched ? [fontoxpathOrderEsbuild()] : [],
  });
  execFileSync(process.execPath, [join(outdir, 'xpath31-order-run.mjs'), sizes], {
    stdio: 'inherit',
    env: { ...process.env, OXML_BENCH_PATCHED: patched ? '1' : '0' },
  });
}
