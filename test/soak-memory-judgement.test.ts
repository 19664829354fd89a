import { describe, expect, it } from 'vitest';
import { judgeMemory, levelMarks, type Sample } from '../scripts/soak/memory-judgement.js';

/*
 * The soak's verdict on memory (docs/adr/0021): the level of RSS less the texts the session holds
 * by design, and the main thread's array buffers beyond them, after the baseline and at the end.
 */

const MIB = 1024;

/** Samples every 100 calls up to `calls`, each from `at(calls)`. */
function run(
  calls: number,
  at: (calls: number) => { rssMiB: number; heldMiB: number; buffersMiB?: number },
): Sample[] {
  return Array.from({ length: calls / 100 }, (_, i) => {
    const n = (i + 1) * 100;
    const { rssMiB, heldMiB, buffersMiB } = at(n);
    return {
      calls: n,
      rssKb: rssMiB * MIB,
      hwmKb: rssMiB * MIB,
      threads: 20,
      rawKb: rssMiB * MIB,
      heldKb: heldMiB * MIB,
      buffersKb: buffersMiB === undefined ? undefined : buffersMiB * MIB,
      heaps: [],
    };
  });
}

function judge(samples: Sample[], baselineAt = 1_000) {
  const calls = samples.at(-1)?.calls ?? 0;
  const marks = levelMarks(calls, baselineAt, 5, 100);
  const baseline = samples.find((s) => s.calls === baselineAt) ?? (samples[0] as Sample);
  return judgeMemory(samples, marks, baseline, samples.at(-1) as Sample, {
    maxGrowth: 0.1,
    maxBufferGrowthMiB: 2,
  });
}

describe('the soak’s memory judgement', () => {
  it('passes RSS that grows only by the texts the session holds', () => {
    const j = judge(
      run(5_000, (n) => ({ rssMiB: 150 + n / 500, heldMiB: n / 500, buffersMiB: 7 + n / 500 })),
    );
    expect(j.levelRatio).toBeCloseTo(1, 5);
    expect(j.rssEndLevel / j.rssBaseLevel).toBeGreaterThan(1.04);
    expect([j.growthOk, j.buffersOk]).toEqual([true, true]);
  });

  it('fails RSS less held texts that grows past the limit', () => {
    const j = judge(run(5_000, (n) => ({ rssMiB: 150 + (n > 3_000 ? 20 : 0), heldMiB: 0, buffersMiB: 7 })));
    expect(j.levelRatio).toBeCloseTo(170 / 150, 5);
    expect(j.growthOk).toBe(false);
  });

  it('fails array buffers beyond the held texts that grow, though RSS does not', () => {
    const j = judge(run(5_000, (n) => ({ rssMiB: 150, heldMiB: 0, buffersMiB: n > 3_000 ? 10 : 7 })));
    expect(j.growthOk).toBe(true);
    expect(j.buffersGrowthMiB).toBeCloseTo(3, 5);
    expect(j.buffersOk).toBe(false);
  });

  it('takes each level as the median of its samples, so one low sample at a recycle does not move it', () => {
    const j = judge(run(5_000, (n) => ({ rssMiB: n === 1_200 ? 130 : 150, heldMiB: 0 })));
    expect(j.baseLevel).toBe(150 * MIB);
    expect(j.measured).toBe(false);
    expect(j.buffersOk).toBe(true);
  });

  it('does not judge a run no longer than its baseline', () => {
    const j = judge(run(1_000, (n) => ({ rssMiB: 100 + n, heldMiB: 0, buffersMiB: n })));
    expect([j.growthOk, j.buffersOk]).toEqual([true, true]);
  });
});
