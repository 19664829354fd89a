/**
 * Applies the fontoxpath and xspattern patches (fontoxpath-patches.ts) when fontoxpath is loaded
 * unbundled:
 * the engine workers tests start from TypeScript (src/engine/runtime/engine-worker.ts) call
 * `registerFontoxpathPatches` after registering tsx and before importing the worker's entry.
 *
 * The patching runs here, in the worker's own thread, where tsx loads this module and its
 * imports; the module hooks only swap in the patched text. They are plain JavaScript in a
 * `data:` URL because Node loads a hooks module with its own loader, not always through hooks
 * registered before it: Node 20 passed a `.ts` hooks module through tsx, Node 22.18 and later
 * strip its types themselves and then cannot find `./fontoxpath-patches.js` (only tsx maps that
 * to the `.ts` file), so every engine call from source failed (issue 36).
 */
import { readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FONTOXPATH_DIST, patchFontoxpath, patchXspattern, XSPATTERN_ESM } from './fontoxpath-patches.js';

/** What the hooks get from `registerFontoxpathPatches`. */
export interface PatchedFontoxpath {
  /** Each patched file's URL → its patched text: fontoxpath's ES module and xspattern's. */
  files: Record<string, string>;
  /**
   * FONTOXPATH_DIST's and XSPATTERN_ESM's sources: any other such file loaded would be
   * unpatched, so it throws.
   */
  patterns: string[];
}

/**
 * The hooks module's text. It must stay plain JavaScript of every supported Node version: no
 * types, no imports.
 */
export const HOOKS_SOURCE = `
let patched;
export function initialize(data) {
  patched = data;
}
export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (Object.hasOwn(patched.files, url)) return { ...result, source: patched.files[url] };
  if (url.startsWith('file:')) {
    const path = decodeURIComponent(new URL(url).pathname);
    if (patched.patterns.some((pattern) => new RegExp(pattern).test(path))) {
      throw new Error('fontoxpath-hooks: ' + url + ' was loaded unpatched; the patched files are ' + Object.keys(patched.files).join(', '));
    }
  }
  return result;
}
`;

/**
 * Patches the fontoxpath that `import 'fontoxpath'` resolves to, and the xspattern ES module it
 * imports (the XSD-regex engine reads its parser), for the rest of this thread.
 */
export function registerFontoxpathPatches(): void {
  const fontoxpath = fileURLToPath(import.meta.resolve('fontoxpath'));
  // xspattern as fontoxpath resolves it: `require` finds its CommonJS file (its package exports
  // no package.json), and the ES module that `import` loads sits beside it.
  const xspattern = join(dirname(createRequire(fontoxpath).resolve('xspattern')), 'xspattern.esm.js');
  const data: PatchedFontoxpath = {
    files: {
      [pathToFileURL(fontoxpath).href]: patchFontoxpath(readFileSync(fontoxpath, 'utf8'), fontoxpath),
      [pathToFileURL(xspattern).href]: patchXspattern(readFileSync(xspattern, 'utf8'), xspattern),
    },
    patterns: [FONTOXPATH_DIST.source, XSPATTERN_ESM.source],
  };
  register(`data:text/javascript,${encodeURIComponent(HOOKS_SOURCE)}`, { data });
}
