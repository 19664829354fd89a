/**
 * Builds dist/: the server as ES module bundles (docs/adr/0030-ship-a-bundle.md).
 *
 *   npx tsx scripts/build.ts        (npm run build; npm's `prepack` runs it before `npm pack`)
 *
 * Three entry points: `dist/cli.js`, the command, which checks the Node.js version and then loads
 * `dist/server.js`, the main thread (src/cli.ts), and `dist/worker.js`, the engine worker.
 * What the main thread loads only for one transport (stdio, Streamable HTTP, legacy SSE) stays in
 * chunks of its own, loaded when that transport starts. libxml2-wasm stays outside: it is loaded
 * by the worker alone, and finds its `.wasm` beside its own module.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { FONTOXPATH_DIST, fontoxpathOrderEsbuild } from './fontoxpath-patches.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist');

rmSync(OUT, { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: ROOT,
  entryPoints: { server: 'src/cli.ts', worker: 'src/engine/runtime/worker.ts' },
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['libxml2-wasm'],
  // Some bundled CommonJS modules (the legacy SSE transport's HTTP stack) require Node's built-ins.
  banner: {
    js: "import { createRequire as __oxmlCreateRequire } from 'node:module'; const require = __oxmlCreateRequire(import.meta.url);",
  },
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  plugins: [fontoxpathOrderEsbuild()],
});

// The command on its own, not split: sharing a chunk with the server (esbuild's helpers) would
// load that chunk before the check.
const command = await build({
  absWorkingDir: ROOT,
  entryPoints: { cli: 'src/bin.ts' },
  outdir: 'dist',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  metafile: true,
});

assertWorkerBesidePool(metafile);
assertCommandImportsOnlyTheCheck(command.metafile);
assertFontoxpathPatched(metafile);
chmodSync(join(OUT, 'cli.js'), 0o755);
writeFileSync(join(OUT, 'THIRD-PARTY-LICENSES.txt'), licenses(metafile));

/**
 * The pool starts its worker from `./worker.js` beside its own module, so the module that holds it
 * must be `dist/server.js` itself, not a chunk one folder down.
 */
function assertWorkerBesidePool(meta: Metafile): void {
  const pool = 'src/engine/runtime/engine-worker.ts';
  const home = Object.entries(meta.outputs).find(([, output]) => pool in output.inputs)?.[0];
  if (home !== 'dist/server.js') {
    throw new Error(
      `${pool} was bundled into ${home ?? 'no output'}, not dist/server.js: its ./worker.js would not resolve`,
    );
  }
}

/**
 * `dist/cli.js` must run its version check before anything else loads: it may import the server
 * only dynamically, and statically only Node's built-ins (the banner's `node:module`).
 */
function assertCommandImportsOnlyTheCheck(meta: Metafile): void {
  const command = meta.outputs['dist/cli.js'];
  const loaded = (command?.imports ?? []).filter((entry) => entry.kind !== 'dynamic-import');
  if (!command || loaded.length > 0) {
    throw new Error(
      `dist/cli.js must load the server only after its version check; it imports ${JSON.stringify(loaded)}`,
    );
  }
}

/**
 * Every fontoxpath file the bundles hold went through the patch, which throws if its text is not
 * found (a file of another name would have escaped it). None is fine: nothing to patch.
 */
function assertFontoxpathPatched(meta: Metafile): void {
  const unpatched = Object.keys(meta.inputs).filter(
    (input) =>
      /(^|[/\\])node_modules[/\\]fontoxpath[/\\]/.test(input) && !FONTOXPATH_DIST.test(join(ROOT, input)),
  );
  if (unpatched.length > 0) {
    throw new Error(`fontoxpath's patches were not applied to ${JSON.stringify(unpatched)}`);
  }
}

/** The license of every package the bundles copy code from, as their notices require. */
function licenses(meta: Metafile): string {
  const packages = new Set<string>();
  for (const input of Object.keys(meta.inputs)) {
    const parts = input.split(/[/\\]/);
    const at = parts.lastIndexOf('node_modules');
    if (at < 0) continue;
    const scoped = parts[at + 1]?.startsWith('@');
    packages.add(parts.slice(0, at + (scoped ? 3 : 2)).join(sep));
  }
  const sections = [...packages].sort().map((folder) => {
    const manifest = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      license?: string;
    };
    const file = readdirSync(join(ROOT, folder)).find((name) => /^(licen[cs]e|copying)/i.test(name));
    const text = file
      ? readFileSync(join(ROOT, folder, file), 'utf8').trim()
      : `License: ${manifest.license ?? 'unknown'}`;
    return `${manifest.name} ${manifest.version} (${manifest.license ?? 'see below'})\n\n${text}`;
  });
  const header =
    'dist/ bundles code from the packages below; each is listed with its license.\n' +
    `Generated by scripts/build.ts from ${relative(ROOT, join(ROOT, 'package-lock.json'))}'s install.`;
  return `${[header, ...sections].join(`\n\n${'-'.repeat(72)}\n\n`)}\n`;
}

if (!existsSync(join(OUT, 'worker.js'))) throw new Error('the build made no dist/worker.js');
