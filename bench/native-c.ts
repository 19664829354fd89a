/**
 * xml_inspect and xml_format against native libxml2 in C (bench/native/inspect-format.c, built
 * here with `cc` against the system's libxml2: on Debian `apt-get install libxml2-dev gcc`).
 * Without a compiler or the library the section is skipped with a line saying why.
 *
 *   npx tsx bench/native-c.ts [--quick] [--cli dist/cli.js] [--engine src/engine]
 *                              (npm run bench runs it as one of its sections)
 *
 * `--cli` and `--engine` measure another checkout (its built dist/cli.js and its src/engine).
 *
 * Pairing in blocks: each block runs the C program (parse + walk, parse + format, each
 * `PER_BLOCK` times after one untimed round, its own median), then our engine call in this
 * process on the same bytes (`PER_BLOCK` times), then the stdio server's call (`PER_BLOCK`
 * first calls, each on a document it has not seen). The ratios are taken per block and their
 * median reported, so a block that met a busy machine weighs on both sides of its ratio. No
 * timed assertions: it reports.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { initializeStdio, preparedParams, StdioClient } from './clients.js';
import { type BenchDocument, generateDocument, SIZES, withVariant } from './documents.js';
import { median, ms, ratio, table } from './stats.js';

const SOURCE = fileURLToPath(new URL('./native/inspect-format.c', import.meta.url));
/** Engine calls per block on each side; the C program takes its median of as many. */
const PER_BLOCK = 3;

interface NativeRun {
  libxml2: string;
  bytes: number;
  /** The query parse alone: what of inspect's time is the parse. */
  parse: { medianMs: number };
  inspect: { medianMs: number };
  format: { medianMs: number };
  totals: { elements: number; attributes: number; paths: number; names: number; maxDepth: number };
  formattedBytes: number;
}

export interface NativeRow {
  size: string;
  operation: 'inspect' | 'format indent 2';
  blocks: number;
  c: number[];
  /** The C parse alone, per block (inspect only). */
  cParse: number[];
  inProcess: number[];
  stdio: number[];
  /** Whether our answer's totals (inspect) or length (format) are the C program's. */
  agrees: string;
}

export type NativeComparison = { libxml2: string; rows: NativeRow[] } | { skipped: string };

/** Engine functions as a build exports them: the working tree's, or a baseline's dist. */
export interface EngineCalls {
  inspect(xml: Uint8Array): {
    totalElements: number;
    attributes: number;
    distinctPaths: number;
    maxDepth: number;
  };
  formatToBytes(xml: Uint8Array, options: { indent: number; emptyElements: 'self-closing' }): Uint8Array;
}

/** Compiles the C program, or says why it cannot. */
export function buildNative(): { binary: string } | { skipped: string } {
  let flags: string[];
  try {
    flags = execFileSync('xml2-config', ['--cflags', '--libs'], { encoding: 'utf8' }).trim().split(/\s+/);
  } catch {
    return {
      skipped: 'no xml2-config, so no libxml2 to build against (Debian: apt-get install libxml2-dev)',
    };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oxml-native-'));
  const binary = path.join(dir, 'inspect-format');
  try {
    execFileSync('cc', ['-O2', '-o', binary, SOURCE, ...flags], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim() ?? '';
    return {
      skipped: `cc could not build bench/native/inspect-format.c (${stderr.slice(0, 200) || 'no cc'})`,
    };
  }
  return { binary };
}

function runNative(binary: string, file: string): NativeRun {
  return JSON.parse(execFileSync(binary, [file, String(PER_BLOCK)], { encoding: 'utf8' })) as NativeRun;
}

function timed(run: () => unknown): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

export interface NativeOptions {
  engine: EngineCalls;
  collectGarbage: () => void;
  log: (message: string) => void;
  /** Blocks per document size. */
  blocks: (size: string) => number;
}

export async function versusNative(
  server: StdioClient,
  docs: BenchDocument[],
  options: NativeOptions,
): Promise<NativeComparison> {
  const built = buildNative();
  if ('skipped' in built) return built;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oxml-native-docs-'));
  const rows: NativeRow[] = [];
  let libxml2 = '';
  let variant = 900_000;
  for (const doc of docs) {
    const file = path.join(dir, `${doc.label.replace(/\W/g, '')}.xml`);
    writeFileSync(file, doc.xml);
    const bytes = new Uint8Array(Buffer.from(doc.xml));
    const reference = runNative(built.binary, file);
    libxml2 = reference.libxml2;
    const ours = options.engine.inspect(bytes);
    const formatted = options.engine.formatToBytes(bytes, { indent: 2, emptyElements: 'self-closing' });
    const sameShape =
      ours.totalElements === reference.totals.elements &&
      ours.attributes === reference.totals.attributes &&
      ours.distinctPaths === reference.totals.paths &&
      ours.maxDepth === reference.totals.maxDepth;
    // libxml2 ends its output with a newline that format drops.
    const sameLength = formatted.byteLength + 1 === reference.formattedBytes;
    const row = (operation: NativeRow['operation'], agrees: string): NativeRow => ({
      size: doc.label,
      operation,
      blocks: 0,
      c: [],
      cParse: [],
      inProcess: [],
      stdio: [],
      agrees,
    });
    const inspectRow = row(
      'inspect',
      sameShape
        ? 'same elements, attributes, paths, depth'
        : `differ: C ${JSON.stringify(reference.totals)}, ours ${JSON.stringify(ours)}`,
    );
    const formatRow = row(
      'format indent 2',
      sameLength
        ? 'same length'
        : `length differs: C ${reference.formattedBytes} B, ours ${formatted.byteLength} + 1 B`,
    );
    const stdioCall = async (tool: string, args: Record<string, unknown>): Promise<number> => {
      const result = await server.call(preparedParams('tools/call', { name: tool, arguments: args }));
      const answer = result.reply.result as { isError?: boolean } | undefined;
      if (!answer || answer.isError || !Number.isFinite(result.ms)) {
        throw new Error(`${tool} ${doc.label}: ${JSON.stringify(result.reply).slice(0, 300)}`);
      }
      return result.ms;
    };
    for (let block = 0; block < options.blocks(doc.label); block++) {
      options.collectGarbage();
      const c = runNative(built.binary, file);
      const local = { inspect: [] as number[], format: [] as number[] };
      for (let i = 0; i < PER_BLOCK; i++) {
        const input = new Uint8Array(Buffer.from(withVariant(doc, ++variant).xml));
        options.collectGarbage();
        local.inspect.push(timed(() => options.engine.inspect(input)));
        options.collectGarbage();
        local.format.push(
          timed(() => options.engine.formatToBytes(input, { indent: 2, emptyElements: 'self-closing' })),
        );
      }
      const remote = { inspect: [] as number[], format: [] as number[] };
      for (let i = 0; i < PER_BLOCK; i++) {
        const xml = withVariant(doc, ++variant).xml;
        options.collectGarbage();
        remote.inspect.push(await stdioCall('xml_inspect', { xml }));
        options.collectGarbage();
        remote.format.push(await stdioCall('xml_format', { xml, indent: 2 }));
      }
      for (const [entry, side] of [
        [inspectRow, 'inspect'],
        [formatRow, 'format'],
      ] as const) {
        entry.blocks++;
        entry.c.push(c[side].medianMs);
        if (side === 'inspect') entry.cParse.push(c.parse.medianMs);
        entry.inProcess.push(median(local[side]));
        entry.stdio.push(median(remote[side]));
      }
    }
    for (const entry of [inspectRow, formatRow]) {
      options.log(
        `native C ${entry.operation} ${doc.label}: C ${ms(median(entry.c))} / in process ${ms(median(entry.inProcess))} / stdio ${ms(median(entry.stdio))} ms`,
      );
      rows.push(entry);
    }
  }
  return { libxml2, rows };
}

/** The medians of each side, and the medians of the per-block ratios ours ÷ C. */
export function nativeTable(rows: NativeRow[]): string {
  const perBlock = (ours: number[], c: number[]) => median(ours.map((value, i) => value / (c[i] as number)));
  return table(
    [
      'size',
      'operation',
      'blocks',
      'C: parse alone',
      'C: parse + work',
      'ours in process',
      'ours stdio (first call)',
      '**in process ÷ C**',
      '**stdio ÷ C**',
      'answers',
    ],
    rows.map((row) => [
      row.size,
      row.operation,
      String(row.blocks),
      row.cParse.length === 0 ? '–' : ms(median(row.cParse)),
      ms(median(row.c)),
      ms(median(row.inProcess)),
      ms(median(row.stdio)),
      `**${ratio(perBlock(row.inProcess, row.c))}**`,
      `**${ratio(perBlock(row.stdio, row.c))}**`,
      row.agrees,
    ]),
  );
}

export function nativeSection(comparison: NativeComparison): string[] {
  const lines = ['## Against native libxml2 in C: `xml_inspect` and `xml_format` (paired in blocks)', ''];
  if ('skipped' in comparison) return [...lines, `Skipped: ${comparison.skipped}.`];
  return [
    ...lines,
    `bench/native/inspect-format.c on the system's libxml2 ${comparison.libxml2} (ours: 2.15.1 in WebAssembly), -O2. C: parse from memory with our parse options, then the walk of src/engine/inspect/shape.ts (counts per name and per path, attributes per path, depth, text), or \`xmlSaveDoc\` indented to memory; its median of ${PER_BLOCK} in process. Ours in process: the engine call on the same bytes, the worker's way (inspect; formatToBytes); stdio: the server's call on a document it has not seen. Ratios: median over the blocks of each block's ratio.`,
    '',
    nativeTable(comparison.rows),
  ];
}

async function standalone(): Promise<void> {
  const argument = (name: string, fallback: string) => {
    const at = process.argv.indexOf(name);
    return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
  };
  const quick = process.argv.includes('--quick');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const cli = path.resolve(root, argument('--cli', 'dist/cli.js'));
  const engineDir = path.resolve(root, argument('--engine', 'src/engine'));
  const extension = engineDir.includes(`${path.sep}dist`) ? 'js' : 'ts';
  const load = async <T>(file: string) =>
    (await import(pathToFileURL(path.join(engineDir, `${file}.${extension}`)).href)) as T;
  // As the worker entry does, before libxml2-wasm loads: the engine's own copy of memory.ts.
  (await load<{ captureWasmMemory: () => void }>('libxml2/memory')).captureWasmMemory();
  const engine: EngineCalls = {
    inspect: (await load<{ inspect: EngineCalls['inspect'] }>('inspect')).inspect,
    formatToBytes: (await load<{ formatToBytes: EngineCalls['formatToBytes'] }>('format')).formatToBytes,
  };
  v8.setFlagsFromString('--expose-gc');
  const collectGarbage = vm.runInNewContext('gc') as () => void;
  const docs = SIZES.filter((size) => size.label === '2 MB' || size.label === '8 MiB').map((size) =>
    generateDocument(size),
  );
  const server = new StdioClient(process.execPath, [cli]);
  try {
    await initializeStdio(server, '2025-11-25');
    const load1 = os.loadavg()[0]?.toFixed(2);
    const started = new Date().toISOString().slice(0, 16).replace('T', ' ');
    const comparison = await versusNative(server, docs, {
      engine,
      collectGarbage,
      log: (message) => process.stderr.write(`bench: ${message}\n`),
      blocks: (size) => (quick ? 2 : size === '2 MB' ? 12 : 8),
    });
    const section = nativeSection(comparison);
    section.splice(
      2,
      0,
      `${started} UTC · cli ${path.relative(root, cli)} · engine ${path.relative(root, engineDir)} · load average ${load1} at start, ${os.loadavg()[0]?.toFixed(2)} at end`,
      '',
    );
    process.stdout.write(`${section.join('\n')}\n`);
    const results = fileURLToPath(new URL('./results/', import.meta.url));
    mkdirSync(results, { recursive: true });
    writeFileSync(
      `${results}native-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
      `${JSON.stringify(comparison, null, 1)}\n`,
    );
  } finally {
    await server.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await standalone();
