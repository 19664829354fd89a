/**
 * Bundles a bench entry with esbuild as the server's own bundle is built (fontoxpath patched,
 * libxml2-wasm external and loaded in a later chunk) so that plain Node runs it: code run
 * through tsx is much slower in fontoxpath's hot loops (esbuild's CommonJS interop, as tsx
 * applies it file by file, turns imported constants into getters).
 */
import { mkdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { fontoxpathOrderEsbuild } from '../scripts/fontoxpath-patches.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
// Inside the repository, so the bundles find libxml2-wasm (left external, as in dist/).
const CACHE = join(ROOT, 'node_modules', '.cache');

/**
 * Bundles `entry` (relative to the repository) into `node_modules/.cache/<name>/`; returns the
 * .mjs to run. `patched`: fontoxpath with every patch, none, or the plugins given.
 */
export async function bundle(
  entry: string,
  name: string,
  patched: boolean | Plugin[] = true,
): Promise<string> {
  const outdir = join(CACHE, name);
  mkdirSync(outdir, { recursive: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
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
    plugins: Array.isArray(patched) ? patched : patched ? [fontoxpathOrderEsbuild()] : [],
  });
  return join(outdir, basename(entry).replace(/\.ts$/, '.mjs'));
}
