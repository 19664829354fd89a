/**
 * Soak: N mixed tool calls over stdio against the built binary, every answer checked, and the
 * server process's resident memory compared between the end and the first 1,000 calls
 * (issue 4: "10,000 mixed calls leave RSS within 10% of its level after the first 1,000").
 *
 *   npm run build && npx tsx scripts/soak.ts [--calls 10000] [--concurrency 4] [--seed 1]
 *
 * Other flags: --pin 2026-07-28 (per-request revision instead of the 2025-11-25 session, so no
 * per-session parse cache), --tools xml_query,xml_format (only those tools), --sample-every N
 * (a GC'd RSS checkpoint every N calls), --smaps 1 (where the resident memory is, at each
 * checkpoint), --gc 0, --max-growth, --max-buffer-growth, --baseline, --bin, --allocator. A
 * deterministic call on every 500th checks that an output-budget cut never splits a surrogate pair.
 *
 * The server runs as the README recommends for a long-running server, with glibc's mmap
 * threshold fixed at 1 MiB (`MALLOC_MMAP_THRESHOLD_=1048576`): by default glibc raises that
 * threshold to the largest block freed so far and then keeps up to twice it free in every
 * malloc arena, which reads as 20–40 MiB of growth over a run that is not a leak (docs/testing.md).
 * `--allocator glibc` runs with glibc's defaults instead; MALLOC_* or GLIBC_TUNABLES variables in
 * the environment are passed on and replace the setting.
 *
 * Not a unit test: it takes minutes. Exit 0 only when every answer is right, no call was lost and
 * the memory did not grow. Half the calls go by document handle (ADR 0016), and the session holds
 * every text it was sent, up to 32 MiB: memory the design keeps on purpose and bounds, which
 * grows over a run (~8 → ~17 MiB in 10,000 calls) without being a leak. So what is judged is
 * RSS less those held texts (ADR 0021), and the held bytes are reported beside it. The client
 * knows them without asking the server: `HandleMix` applies the store's rules to what it sent
 * (held when sent, used when named, least recently used evicted past the bound, let go when
 * refused; test/soak-held-mirror.test.ts checks it against the store after every call). It is
 * what the design holds, not what the server says it holds, so a store that keeps more than
 * that, or anything else, still counts. Two judgments:
 * - the level of RSS less held texts at the end is within --max-growth (default 10%) of its
 *   level after --baseline calls (default 1,000). A level is the median of --level-samples GC'd
 *   samples (default 10) taken --level-spacing calls apart (default 100): from the baseline on,
 *   and up to the end. The medians smooth what single samples catch at a recycle (ADR 0006: a
 *   fresh worker's heap is ~13 MiB lower until it has parsed a large document), and a leak moves
 *   them just the same. The single-sample ratio and the RSS levels themselves are reported.
 * - the main thread's live array buffers after a full GC, less the held texts (which are array
 *   buffers there), grow by at most --max-buffer-growth MiB (default 2) between the same levels.
 *   That figure is V8's exact count, not the allocator's: a leak of a few MiB that free memory
 *   already resident in malloc's arenas hides from RSS (a released text kept by mistake: RSS
 *   judged 1.039 in one run, 1.162 in another) shows here at once (+15.8 MiB; 6.9 → 7.1–7.4 MiB
 *   without it). Needs the GC (not with --gc 0).
 * RSS is VmRSS of the server child from /proc (the engine's worker threads live in that process),
 * read after the in-flight calls drain. An un-collected V8 heap swings RSS by ±15% between two
 * samples of the same run, so by default the server runs with `--inspect=127.0.0.1:0` and each
 * sample is taken after a full garbage collection of the main thread and every engine worker
 * (HeapProfiler.collectGarbage over the inspector, loopback only); the raw figure is reported
 * too. `--gc 0` turns this off. Every loop is bounded in count and time
 * (--max-seconds). Documents are generated here, deterministically from --seed; nothing is read
 * from disk or the network.
 *
 * The generators, the answer checks (the oracle) and the memory judgement are in scripts/soak/,
 * which scripts/load.ts and scripts/scale.ts share; this file runs them.
 */
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { MAX_HELD_SESSION_BYTES } from '../src/limits.js';
import { CLI } from '../test/support/built-cli.js';
import { groupByLabel } from './lib/figures.js';
import { parseFlags } from './lib/flags.js';
import { runWithWebSocket } from './lib/inspector-run.js';
import { mb, memoryMap, processMemory } from './lib/process-memory.js';
import { sleep, within } from './lib/time.js';
import { allocatorEnvironment } from './soak/allocator.js';
import { planAstralCut } from './soak/astral-cut.js';
import { planCall } from './soak/call-mix.js';
import { buildCorpus } from './soak/documents.js';
import { collectGarbage, type ThreadHeap, threadMemory } from './soak/garbage-collection.js';
import { callThroughClient, type callWithHandles, HandleMix } from './soak/handle-mix.js';
import { judgeMemory, levelMarks, type Sample } from './soak/memory-judgement.js';
import { callSeed } from './soak/random.js';

const USAGE = `usage: npx tsx scripts/soak.ts [--calls 10000] [--concurrency 4] [--seed 1] [--baseline 1000]
                              [--max-growth 0.10] [--max-buffer-growth 2] [--settle-ms 1000]
                              [--sample-every 1000]
                              [--level-samples 10] [--level-spacing 100]
                              [--max-seconds 1800] [--smaps 0|1]
                              [--call-timeout-ms 60000] [--gc 1] [--tools all|xml_query,...]
                              [--pin none|2026-07-28] [--allocator recommended|glibc]
                              [--bin dist/cli.js]
`;

interface Failure {
  index: number;
  label: string;
  reason: string;
}

async function main(): Promise<void> {
  const flags = parseFlags(
    process.argv.slice(2),
    {
      calls: 10_000,
      concurrency: 4,
      seed: 1,
      baseline: 1_000,
      'max-growth': 0.1,
      'max-buffer-growth': 2,
      'settle-ms': 1_000,
      'sample-every': 1_000,
      'level-samples': 10,
      'level-spacing': 100,
      smaps: 0,
      'max-seconds': 1_800,
      'call-timeout-ms': 60_000,
      gc: 1,
      tools: 'all',
      pin: 'none',
      allocator: 'recommended',
      bin: CLI,
    },
    USAGE,
  );
  const calls = Math.floor(flags.calls);
  const forceGc = flags.gc !== 0;
  const only = flags.tools === 'all' ? undefined : flags.tools.split(',');
  const baselineAt = Math.min(Math.floor(flags.baseline), calls);
  const concurrency = Math.max(1, Math.floor(flags.concurrency));
  const deadline = Date.now() + flags['max-seconds'] * 1000;

  const corpus = buildCorpus({ seed: flags.seed });
  const sizes = [...corpus.docs, ...corpus.big].map((d) => Buffer.byteLength(d.xml));
  log(
    `corpus: ${corpus.docs.length} documents ${kb(Math.min(...sizes))}–${kb(Math.max(...sizes.slice(0, corpus.docs.length)))}, ` +
      `${corpus.big.length} of ~${kb(Math.min(...sizes.slice(corpus.docs.length)))}`,
  );

  const allocator = allocatorEnvironment(flags.allocator);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(forceGc ? ['--inspect=127.0.0.1:0'] : []), flags.bin],
    env: { ...getDefaultEnvironment(), ...allocator },
    stderr: 'pipe',
  });
  let serverStderr = '';
  let inspectorUrl: string | undefined;
  // With stderr 'pipe' the transport's stream is the child's stderr, a Readable.
  const stderr = transport.stderr as Readable | null;
  stderr?.setEncoding('utf8');
  stderr?.on('data', (chunk: string) => {
    inspectorUrl ??= /Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)/.exec(chunk)?.[1];
    serverStderr = (serverStderr + chunk).slice(-16_384);
  });
  const client = new Client(
    { name: 'oxml-soak', version: '1' },
    flags.pin === 'none' ? {} : { versionNegotiation: { mode: { pin: flags.pin } } },
  );
  await within(client.connect(transport), 30_000, 'connect');
  const pid = transport.pid;
  if (pid === null || pid === undefined) throw new Error('the server has no process id');
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  if (names.join() !== 'xml_check,xml_format,xml_inspect,xml_query,xml_validate') {
    throw new Error(`unexpected tools: ${names.join(', ')}`);
  }
  log(
    `server pid ${pid}, protocol ${client.getNegotiatedProtocolVersion()}, start RSS ${mb(processMemory(pid).rssKb)}`,
  );

  const stats = {
    done: 0,
    wrong: [] as Array<Failure & { tool: string }>,
    lost: [] as Failure[],
    isError: 0,
    byTool: {} as Record<string, number>,
    byLabel: {} as Record<string, number>,
  };
  // A stdio connection is a session in every revision: half the calls go by handle where they can.
  const handles = new HandleMix();
  const samples: Sample[] = [];
  let timedOut = false;
  let gcFailed = false;

  async function one(index: number): Promise<void> {
    // A deterministic astral-cut case on every 500th call; the rest from the mix.
    const seed = callSeed(flags.seed, index);
    const plan =
      index % 500 === 250 && (!only || only.includes('xml_query'))
        ? planAstralCut(seed)
        : planCall(corpus, seed, { tools: only });
    let answer: Awaited<ReturnType<typeof callWithHandles>>;
    try {
      answer = await callThroughClient(client, handles, plan, index, flags['call-timeout-ms']);
    } catch (error) {
      stats.lost.push({ index, label: plan.label, reason: String((error as Error)?.message ?? error) });
      return;
    } finally {
      stats.done++;
      stats.byTool[plan.tool] = (stats.byTool[plan.tool] ?? 0) + 1;
    }
    stats.byLabel[plan.label] = (stats.byLabel[plan.label] ?? 0) + 1;
    if (answer.result?.isError) stats.isError++;
    const problem = answer.problem;
    if (problem) stats.wrong.push({ index, label: plan.label, tool: plan.tool, reason: problem });
  }

  async function runRange(from: number, to: number): Promise<void> {
    let next = from;
    const lane = async () => {
      while (next < to) {
        if (Date.now() > deadline) {
          timedOut = true;
          return;
        }
        await one(next++);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
  }

  /**
   * A checkpoint, once the in-flight calls have drained: RSS raw, then (unless --gc 0) after a
   * full garbage collection of every thread and --settle-ms of idle, with each thread's V8 heap.
   */
  async function checkpoint(): Promise<Sample> {
    const raw = processMemory(pid as number);
    let gc = 'no GC';
    let heaps: ThreadHeap[] = [];
    if (forceGc) {
      try {
        if (!inspectorUrl) throw new Error('the server printed no inspector URL');
        heaps = await within(collectGarbage(inspectorUrl), 30_000, 'garbage collection');
        gc = `after GC of ${heaps.length} threads`;
      } catch (error) {
        gc = `GC FAILED (${(error as Error).message})`;
        gcFailed = true;
      }
    }
    await sleep(flags['settle-ms']);
    const heldKb = handles.heldBytes / 1024;
    const main = heaps.find((h) => h.thread === 'main');
    const buffersKb = main ? main.arrayBuffers / 1024 : undefined;
    const sample: Sample = {
      calls: stats.done,
      ...processMemory(pid as number),
      rawKb: raw.rssKb,
      heldKb,
      buffersKb,
      heaps,
    };
    const heapText = heaps.map(threadMemory).join(', ');
    if (flags.smaps) log(`${stats.done} calls, resident MiB by region: ${memoryMap(pid as number)}`);
    log(
      `${stats.done} calls, ${(stats.done / (callSeconds + (performance.now() - phaseStart) / 1000 || 1)).toFixed(0)} calls/s, RSS ${mb(raw.rssKb)} raw, ${mb(sample.rssKb)} ${gc}, held texts ${mb(heldKb)} (${handles.heldTexts})${heapText ? ` (MiB heap/external/arrayBuffers: ${heapText})` : ''}; wrong ${stats.wrong.length}, lost ${stats.lost.length}`,
    );
    return sample;
  }

  // Checkpoints every --sample-every calls, and the samples of the two levels compared.
  const levelCount = Math.max(1, Math.floor(flags['level-samples']));
  const spacing = Math.max(1, Math.floor(flags['level-spacing']));
  const levels = levelMarks(calls, baselineAt, levelCount, spacing);
  const marks = new Set([...levels.baseline, ...levels.end]);
  for (let at = flags['sample-every']; at > 0 && at < calls; at += flags['sample-every']) marks.add(at);
  let callSeconds = 0;
  let phaseStart = performance.now();
  let baseline: Sample | undefined;
  let from = 0;
  for (const mark of [...marks].filter((m) => m > 0).sort((a, b) => a - b)) {
    phaseStart = performance.now();
    await runRange(from, mark);
    callSeconds += (performance.now() - phaseStart) / 1000;
    phaseStart = performance.now();
    from = mark;
    const sample = await checkpoint();
    samples.push(sample);
    if (mark === baselineAt) baseline = sample;
    if (timedOut) break;
  }
  const end = samples.at(-1);
  if (!end || !baseline) throw new Error('no sample was taken at the baseline and the end');
  const alive = isAlive(pid);
  await client.close();
  const exitedAfterClose = await waitForExit(pid, 10_000);

  const elapsed = callSeconds;
  const j = judgeMemory(samples, levels, baseline, end, {
    maxGrowth: flags['max-growth'],
    maxBufferGrowthMiB: flags['max-buffer-growth'],
  });
  const report = [
    '',
    '== oxml-mcp soak (stdio) ==',
    `command:          npx tsx scripts/soak.ts ${process.argv.slice(2).join(' ')}`.trimEnd(),
    `binary:           ${flags.bin} (pid ${pid})`,
    `allocator:        ${
      Object.entries(allocator)
        .map(([name, value]) => `${name}=${value}`)
        .join(' ') || "glibc's defaults"
    }`,
    `calls:            ${stats.done} of ${calls} (concurrency ${concurrency}, seed ${flags.seed})`,
    `per tool:         ${Object.entries(stats.byTool)
      .sort()
      .map(([t, n]) => `${t} ${n}`)
      .join(', ')}`,
    `isError answers:  ${stats.isError} (expected failures, each checked)`,
    `by handle:        ${handles.stats.byHandle} calls (${handles.stats.notHeld} no longer held, sent again as text)`,
    `wrong answers:    ${stats.wrong.length}`,
    `lost calls:       ${stats.lost.length}`,
    `RSS after ${baselineAt}: ${mb(baseline.rssKb)}${forceGc ? ` after full GC (raw ${mb(baseline.rawKb)})` : ''}`,
    `RSS at end:       ${mb(end.rssKb)}${forceGc ? ` after full GC (raw ${mb(end.rawKb)})` : ''}; peak VmHWM ${mb(end.hwmKb)}, ${end.threads} threads`,
    `held texts:       ${mb(j.heldBase)} → ${mb(j.heldEnd)} (levels; ${handles.heldTexts} texts at the end, session bound ${mb(MAX_HELD_SESSION_BYTES / 1024)})`,
    `RSS levels:       ${mb(j.rssBaseLevel)} → ${mb(j.rssEndLevel)} (ratio ${(j.rssEndLevel / j.rssBaseLevel).toFixed(3)}, reported, not judged)`,
    `judged levels:    ${mb(j.baseLevel)} → ${mb(j.endLevel)} (RSS less held texts; median of ${levelCount} samples ${spacing} calls apart, from ${baselineAt} and up to ${calls})`,
    `level ratio:      ${j.levelRatio.toFixed(3)} (limit ${(1 + flags['max-growth']).toFixed(2)})`,
    j.measured
      ? `other buffers:    ${mb(j.buffersBase)} → ${mb(j.buffersEnd)} (${j.buffersGrowthMiB >= 0 ? '+' : ''}${j.buffersGrowthMiB.toFixed(2)} MiB, limit +${flags['max-buffer-growth']} MiB: the main thread's array buffers after GC less held texts, levels)`
      : 'other buffers:    not judged (no GC, so no exact array-buffer figures)',
    `single samples:   ${j.ratio.toFixed(3)} end/base less held texts${forceGc ? `; raw RSS ${j.rawRatio.toFixed(3)}` : ''} (reported, not judged)`,
    `RSS trajectory:   ${samples.map((s) => `${s.calls}:${(s.rssKb / 1024).toFixed(0)}`).join(' ')} (MiB${forceGc ? ', after GC' : ''})`,
    `held trajectory:  ${samples.map((s) => `${s.calls}:${(s.heldKb / 1024).toFixed(1)}`).join(' ')} (MiB of text the session holds)`,
    `raw trajectory:   ${samples.map((s) => `${s.calls}:${(s.rawKb / 1024).toFixed(0)}`).join(' ')} (MiB, before GC)`,
    ...(forceGc
      ? [
          `threads after GC: ${[baseline, end]
            .map((s) => `${s.calls}: ${s.heaps.map(threadMemory).join(', ')}`)
            .join(' | ')} (MiB V8 heap used/external/arrayBuffers)`,
        ]
      : []),
    `time:             ${elapsed.toFixed(1)} s of calls, ${(stats.done / elapsed).toFixed(1)} calls/s`,
    `server:           ${alive ? 'alive at end' : 'NOT ALIVE at end'}, ${exitedAfterClose ? 'exited after close' : 'still running 10 s after close'}`,
  ];
  if (timedOut) report.push(`STOPPED: --max-seconds ${flags['max-seconds']} reached`);
  for (const [label, list] of groupByLabel(stats.wrong)) {
    report.push(`WRONG ${label} × ${list.length}; first: call #${list[0]?.index}: ${list[0]?.reason}`);
  }
  for (const [label, list] of groupByLabel(stats.lost)) {
    report.push(`LOST ${label} × ${list.length}; first: call #${list[0]?.index}: ${list[0]?.reason}`);
  }
  if (gcFailed) report.push('GC before a sample failed: the RSS figures are raw and noisy');
  const ok =
    stats.wrong.length === 0 &&
    stats.lost.length === 0 &&
    j.growthOk &&
    j.buffersOk &&
    !timedOut &&
    !gcFailed &&
    alive &&
    exitedAfterClose;
  const why = [
    j.growthOk ? '' : 'RSS less held texts grew past the limit',
    j.buffersOk ? '' : 'array buffers beyond the held texts grew past the limit',
  ].filter(Boolean);
  report.push(`verdict:          ${ok ? 'PASS' : 'FAIL'}${why.length > 0 ? ` (${why.join('; ')})` : ''}`);
  if (!ok && serverStderr.trim()) report.push(`server stderr (tail):\n${serverStderr.slice(-2000)}`);
  process.stdout.write(`${report.join('\n')}\n`);
  process.exit(ok ? 0 : 1);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!isAlive(pid)) return true;
    await sleep(50);
  }
  return !isAlive(pid);
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
const log = (line: string) => process.stderr.write(`[soak] ${line}\n`);

runWithWebSocket('soak', main);
