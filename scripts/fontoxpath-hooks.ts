/**
 * Node module hooks (`module.register`) that apply the fontoxpath and xspattern patches
 * (fontoxpath-patches.ts) when fontoxpath is loaded unbundled: the engine workers tests start
 * from TypeScript through tsx (src/engine/runtime/engine-worker.ts) register them after tsx's.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { FONTOXPATH_DIST, patchIfFontoxpath, XSPATTERN_ESM } from './fontoxpath-patches.js';

interface LoadResult {
  format?: string | null;
  source?: string | ArrayBuffer | ArrayBufferView | null;
  shortCircuit?: boolean;
}
type NextLoad = (url: string, context: unknown) => Promise<LoadResult>;

export async function load(url: string, context: unknown, nextLoad: NextLoad): Promise<LoadResult> {
  const result = await nextLoad(url, context);
  if (!url.startsWith('file:')) return result;
  const path = fileURLToPath(url);
  if (!FONTOXPATH_DIST.test(path) && !XSPATTERN_ESM.test(path)) return result;
  const raw = result.source ?? (await readFile(path));
  const text = typeof raw === 'string' ? raw : Buffer.from(raw as Uint8Array).toString('utf8');
  return { ...result, source: patchIfFontoxpath(path, text) ?? text };
}
