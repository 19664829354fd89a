import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * The import half of these rules is Biome's noRestrictedImports (biome.json); what an import
 * rule cannot see is a private field read through a cast, so that is held here.
 */
const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const SEAM = 'engine/libxml2/';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('layering', () => {
  it("reaches libxml2-wasm's private fields and raw memory only from src/engine/libxml2/", () => {
    const outside = sources(SRC)
      .map((file) => relative(SRC, file))
      .filter((file) => !file.startsWith(SEAM))
      .filter((file) =>
        /\._ptr\b|_ptr:|WebAssembly\.|libxml2-wasm\/lib/.test(readFileSync(join(SRC, file), 'utf8')),
      );
    expect(outside).toEqual([]);
  });

  it('holds the seam to something: the raw access it keeps out is really used inside it', () => {
    const inside = sources(join(SRC, SEAM)).map((file) => readFileSync(file, 'utf8'));
    expect(inside.some((text) => text.includes('._ptr'))).toBe(true);
    expect(inside.some((text) => text.includes('libxml2-wasm/lib/libxml2.mjs'))).toBe(true);
  });
});
