import { medianOf } from '../lib/figures.js';
import type { ProcessMemory } from '../lib/process-memory.js';
import type { ThreadHeap } from './garbage-collection.js';

/** A checkpoint: the server's memory once the calls in flight drained. */
export interface Sample extends ProcessMemory {
  calls: number;
  /** RSS before the garbage collection. */
  rawKb: number;
  /** Text the session holds by design at this point (HandleMix). */
  heldKb: number;
  /** The main thread's live array buffers after a full GC (undefined without a GC). */
  buffersKb: number | undefined;
  heaps: ThreadHeap[];
}

/** The call counts at which the two levels' samples are taken. */
export interface Marks {
  baselineAt: number;
  calls: number;
  baseline: number[];
  end: number[];
}

/**
 * `samples` samples taken `spacing` calls apart from `baselineAt` on, and as many up to the end
 * of `calls`.
 */
export function levelMarks(calls: number, baselineAt: number, samples: number, spacing: number): Marks {
  return {
    baselineAt,
    calls,
    baseline: Array.from({ length: samples }, (_, i) => Math.min(calls, baselineAt + i * spacing)),
    end: Array.from({ length: samples }, (_, i) => Math.max(0, calls - i * spacing)),
  };
}

export interface Judgement {
  /** RSS less held texts: the judged levels and their ratio. */
  baseLevel: number;
  endLevel: number;
  levelRatio: number;
  rssBaseLevel: number;
  rssEndLevel: number;
  heldBase: number;
  heldEnd: number;
  /** End over baseline of single samples, RSS less held texts and raw RSS (reported, not judged). */
  ratio: number;
  rawRatio: number;
  growthOk: boolean;
  /** Whether every sample has the main thread's array buffers (a GC was made). */
  measured: boolean;
  buffersBase: number;
  buffersEnd: number;
  buffersGrowthMiB: number;
  buffersOk: boolean;
}

/**
 * The two judgements of the soak (docs/adr/0021): the level of RSS less the texts the session
 * holds by design, at the end over after the baseline, within `maxGrowth`; and the main thread's
 * array buffers beyond those texts grown by at most `maxBufferGrowthMiB`. A level is the median
 * of its marks' samples. A run no longer than its baseline is not judged.
 */
export function judgeMemory(
  samples: readonly Sample[],
  marks: Marks,
  baseline: Sample,
  end: Sample,
  { maxGrowth, maxBufferGrowthMiB }: { maxGrowth: number; maxBufferGrowthMiB: number },
): Judgement {
  const level = (at: readonly number[], of: (sample: Sample) => number) =>
    medianOf(samples.filter((sample) => at.includes(sample.calls)).map(of));
  const judged = (sample: Sample) => sample.rssKb - sample.heldKb;
  const baseLevel = level(marks.baseline, judged);
  const endLevel = level(marks.end, judged);
  const levelRatio = endLevel / baseLevel;
  const judgedAtAll = marks.calls > marks.baselineAt;
  const measured = samples.every((sample) => sample.buffersKb !== undefined);
  const unheld = (sample: Sample) => (sample.buffersKb ?? Number.NaN) - sample.heldKb;
  const buffersBase = measured ? level(marks.baseline, unheld) : Number.NaN;
  const buffersEnd = measured ? level(marks.end, unheld) : Number.NaN;
  const buffersGrowthMiB = (buffersEnd - buffersBase) / 1024;
  return {
    baseLevel,
    endLevel,
    levelRatio,
    rssBaseLevel: level(marks.baseline, (x) => x.rssKb),
    rssEndLevel: level(marks.end, (x) => x.rssKb),
    heldBase: level(marks.baseline, (x) => x.heldKb),
    heldEnd: level(marks.end, (x) => x.heldKb),
    ratio: judged(end) / judged(baseline),
    rawRatio: end.rawKb / baseline.rawKb,
    growthOk: !judgedAtAll || levelRatio <= 1 + maxGrowth,
    measured,
    buffersBase,
    buffersEnd,
    buffersGrowthMiB,
    buffersOk: !measured || !judgedAtAll || buffersGrowthMiB <= maxBufferGrowthMiB,
  };
}
