/**
 * Applies the fontoxpath patches (fontoxpath-patches.ts) when fontoxpath is loaded unbundled:
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
import { register } from 'node:module';
import { fileURLToPath } from 'node:url';
import { FONTOXPATH_DIST, patchFontoxpath } from './fontoxpath-patches.js';

/** What the hooks get from `registerFontoxpathPatches`. */
export interface PatchedFontoxpath {
  url: string;
  source: string;
  /** FONTOXPATH_DIST's source: any other fontoxpath file loaded would be unpatched, so it throws. */
  distPattern: string;
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
  if (url === patched.url) return { ...result, source: patched.source };
  if (url.startsWith('file:') && new RegExp(patched.distPattern).test(decodeURIComponent(new URL(url).pathname))) {
    throw new Error('fontoxpath-hooks: fontoxpath was loaded from ' + url + ', but the patched file is ' + patched.url);
  }
  return result;
}
`;

/** Patches the fontoxpath that `import 'fontoxpath'` resolves to, for the rest of this thread. */
export function registerFontoxpathPatches(): void {
  const url = import.meta.resolve('fontoxpath');
  const path = fileURLToPath(url);
  const data: PatchedFontoxpath = {
    url,
    source: patchFontoxpath(readFileSync(path, 'utf8'), path),
    distPattern: FONTOXPATH_DIST.source,
  };
  register(`data:text/javascript,${encodeURIComponent(HOOKS_SOURCE)}`, { data });
}
