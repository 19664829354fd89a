/**
 * The two changes made to fontoxpath 3.34.0's code (docs/adr/0034-two-patches-to-fontoxpath.md).
 *
 * 1. Its document-order comparison of two nodes of
 * an external DOM (minified `rd`, unminified `compareNodePositionsWithTieBreaker` in
 * src/dataTypes/documentOrderUtils.ts) builds both ancestor chains and scans their common
 * parent's whole child list, so sorting the records of a flat export is quadratic in their
 * count (8 MiB: 5 to 14 s for `sum(//record/price)`). The patch asks the external facade first:
 * `b` there is fontoxpath's DomFacade wrapper, whose field `h` is the facade it was given
 * (src/engine/libxml2/xpath31-view.ts, `compareDocumentOrder`); when the facade has no such
 * method, or answers `undefined`, fontoxpath goes on as before. Attributes never reach `rd`
 * (its caller `sd` compares them by their element, and two of one element by local name), so
 * fontoxpath's order is kept exactly.
 *
 * 2. `fn:min` and `fn:max` compare with `<` and `>`, which for its duration objects (no
 * `valueOf`) compares their strings: `max((PT30M, PT1H, PT5M))` was PT5M, silently. The patch
 * compares two durations (instances of the duration base class, minified `xb`) by months, then
 * seconds (`o()`, `v()`, which its own `equals` uses), and anything else as before.
 *
 * 3. Its regular-expression caches are bounded (REGEX_CACHE_ENTRIES, below).
 *
 * All are applied to fontoxpath's dist file (CommonJS `fontoxpath.js`, which esbuild, tsx and Node pick
 * through `main`; the ES module `fontoxpath.esm.js`, which Vite picks through `module`; both have
 * the same text) by: the production bundle (scripts/build.ts, esbuild plugin), vitest
 * (vitest.config.ts, Vite plugin) and the engine workers tests start from TypeScript
 * (src/engine/runtime/engine-worker.ts registers scripts/fontoxpath-hooks.ts). It throws
 * unless the expected text is there exactly once, so a fontoxpath upgrade fails the build
 * instead of silently losing the patch.
 */

import { readFileSync } from 'node:fs';
import type { Plugin as EsbuildPlugin } from 'esbuild';
import type { Plugin as VitePlugin } from 'vite';

/** fontoxpath's dist files, as a path (either separator). */
export const FONTOXPATH_DIST = /[\\/]node_modules[\\/]fontoxpath[\\/]dist[\\/]fontoxpath(?:\.esm)?\.js$/;

/** The text the patch goes into; the insertion is after `if(c===e)return 0;`. */
export const ORDER_ANCHOR = 'c=c.node;e=d.node;if(c===e)return 0;d=qd(b,c);c=qd(b,e);';
const INSERT_AFTER = 'if(c===e)return 0;';
export const ORDER_INSERT =
  'if(b.h&&b.h.compareDocumentOrder){const oxmlOrder=b.h.compareDocumentOrder(c,e);if(oxmlOrder!==void 0)return oxmlOrder}';

/** fontoxpath's source with the document-order patch; throws unless the anchor occurs exactly once. */
export function patchFontoxpathOrder(source: string, file = 'fontoxpath'): string {
  const at = source.indexOf(ORDER_ANCHOR);
  const again = at < 0 ? -1 : source.indexOf(ORDER_ANCHOR, at + 1);
  if (at < 0 || again >= 0) {
    throw new Error(
      `fontoxpath-patches: expected the text ${JSON.stringify(ORDER_ANCHOR)} exactly once in ${file}, ` +
        `found it ${at < 0 ? 0 : 'more than once'}; fontoxpath changed (package.json pins 3.34.0): ` +
        'check its document-order comparison (documentOrderUtils) and update scripts/fontoxpath-patches.ts',
    );
  }
  const cut = at + ORDER_ANCHOR.indexOf(INSERT_AFTER) + INSERT_AFTER.length;
  return source.slice(0, cut) + ORDER_INSERT + source.slice(cut);
}

/** `a` before `b`: durations by months then seconds, anything else as fontoxpath compared it. */
const BEFORE = '((x,y)=>x instanceof xb&&y instanceof xb?(x.o()-y.o()||x.v()-y.v())<0:x<y)';
const DURATION_PATCHES: ReadonlyArray<readonly [string, string]> = [
  [
    'return w.m(a.reduce((e,f)=>e.value<f.value?f:e))},localName:"max"',
    `return w.m(a.reduce((e,f)=>${BEFORE}(e.value,f.value)?f:e))},localName:"max"`,
  ],
  [
    'return w.m(a.reduce((e,f)=>e.value>f.value?f:e))},localName:"min"',
    `return w.m(a.reduce((e,f)=>${BEFORE}(f.value,e.value)?f:e))},localName:"min"`,
  ],
  // The class the comparison names must be the duration base class it was written against.
  ['var xb=class{equals(a){return this.o()===a.o()&&this.v()===a.v()}', ''],
];

/** fontoxpath's source with min and max comparing durations by value; throws unless each anchor occurs once. */
export function patchFontoxpathDurations(source: string, file = 'fontoxpath'): string {
  return replaceEachOnce(source, DURATION_PATCHES, file, 'fn:min/fn:max');
}

/**
 * `source` with each anchor replaced (an empty replacement only checks that the anchor is there);
 * throws unless each occurs exactly once, naming `what` to re-read in fontoxpath.
 */
function replaceEachOnce(
  source: string,
  patches: ReadonlyArray<readonly [string, string]>,
  file: string,
  what: string,
): string {
  let patched = source;
  for (const [anchor, replacement] of patches) {
    const at = patched.indexOf(anchor);
    if (at < 0 || patched.indexOf(anchor, at + 1) >= 0) {
      throw new Error(
        `fontoxpath-patches: expected the text ${JSON.stringify(anchor)} exactly once in ${file}; fontoxpath changed (package.json pins 3.34.0): check ${what} and update scripts/fontoxpath-patches.ts`,
      );
    }
    if (replacement !== '') patched = patched.slice(0, at) + replacement + patched.slice(at + anchor.length);
  }
  return patched;
}

/**
 * Patterns each of fontoxpath's two regular-expression caches keeps at most. Unbounded, they kept
 * every distinct pattern for the worker's life (~800 KiB each for `a{1,1750}b`: 250 of them in one
 * call kept 195 MiB, and the next calls ran out of time or memory; ADR 0048). A call that cycles
 * through more patterns than this compiles some again; none keeps more than these afterwards.
 */
export const REGEX_CACHE_ENTRIES = 16;
const REGEX_CACHE_PATCHES: ReadonlyArray<readonly [string, string]> = [
  // fn:matches' cache of xspattern matchers.
  ['je.set(h,k)}return k(f)?', `je.size>=${REGEX_CACHE_ENTRIES}&&je.clear();je.set(h,k)}return k(f)?`],
  // fn:replace's and fn:tokenize's cache of JavaScript RegExps.
  ['ke.set(a,b);return b}', `ke.size>=${REGEX_CACHE_ENTRIES}&&ke.clear();ke.set(a,b);return b}`],
];

/** fontoxpath's source with its regular-expression caches bounded; throws unless each anchor occurs once. */
export function patchFontoxpathRegexCaches(source: string, file = 'fontoxpath'): string {
  return replaceEachOnce(
    source,
    REGEX_CACHE_PATCHES,
    file,
    'the pattern caches of fn:matches, fn:replace and fn:tokenize',
  );
}

/** Every patch. */
export function patchFontoxpath(source: string, file = 'fontoxpath'): string {
  return patchFontoxpathRegexCaches(patchFontoxpathDurations(patchFontoxpathOrder(source, file), file), file);
}

/** The patched source when `path` is one of fontoxpath's dist files, else null. */
export function patchIfFontoxpath(path: string, source: string): string | null {
  return FONTOXPATH_DIST.test(path) ? patchFontoxpath(source, path) : null;
}

/** The patch as an esbuild plugin (scripts/build.ts, the benchmark's bundles). */
export function fontoxpathOrderEsbuild(): EsbuildPlugin {
  return {
    name: 'fontoxpath-order',
    setup(esbuild) {
      esbuild.onLoad({ filter: FONTOXPATH_DIST }, (args) => ({
        contents: patchFontoxpath(readFileSync(args.path, 'utf8'), args.path),
        loader: 'js',
      }));
    },
  };
}

/**
 * The patch as a Vite plugin (vitest.config.ts). Vitest leaves node_modules to Node unless told
 * to inline them, so the config inlines fontoxpath for this transform to see it.
 */
export function fontoxpathOrderVite(): VitePlugin {
  return {
    name: 'fontoxpath-order',
    enforce: 'pre',
    transform(code, id) {
      const patched = patchIfFontoxpath(id.split('?')[0] as string, code);
      return patched === null ? null : { code: patched, map: null };
    },
  };
}
