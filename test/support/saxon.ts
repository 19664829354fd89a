import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The official validation of a set of documents: one Saxon-HE run of a Schematron's XSLT build
 * over a folder of them (one compile for all), each one's SVRL read back as the ids of its failed
 * asserts and successful reports, counted (`BR-CO-10` → 2). `jar`: Saxon-HE's (services.ts).
 */
export function saxonFindings(
  jar: string,
  stylesheet: string,
  documents: Record<string, string>,
): Record<string, Record<string, number>> {
  const folder = mkdtempSync(join(tmpdir(), 'oxml-saxon-'));
  try {
    const input = join(folder, 'in');
    const output = join(folder, 'out');
    spawnSync('mkdir', ['-p', input, output]);
    for (const [name, text] of Object.entries(documents)) writeFileSync(join(input, `${name}.xml`), text);
    const run = spawnSync(
      'java',
      ['-cp', jar, 'net.sf.saxon.Transform', `-s:${input}`, `-xsl:${stylesheet}`, `-o:${output}`],
      { encoding: 'utf8' },
    );
    if (run.status !== 0) throw new Error(`Saxon failed: ${run.stderr}`);
    const findings: Record<string, Record<string, number>> = {};
    for (const file of readdirSync(output)) {
      const svrl = readFileSync(join(output, file), 'utf8');
      const counts: Record<string, number> = {};
      for (const [, id] of svrl.matchAll(
        /<svrl:(?:failed-assert|successful-report)\b[^>]*?\bid="([^"]*)"/g,
      )) {
        counts[id as string] = (counts[id as string] ?? 0) + 1;
      }
      findings[file.replace(/\.xml$/, '')] = counts;
    }
    return findings;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
