/** Small statistics and formatting helpers for the benchmark report. */

export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  // Nearest rank: the smallest sample with at least q of the samples at or below it.
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1] as number;
}

export const median = (samples: readonly number[]): number => {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

export const p90 = (samples: readonly number[]): number => quantile(samples, 0.9);

/** Milliseconds with precision that suits their size: 0.052, 2.41, 131.6. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return '–';
  const size = Math.abs(value);
  if (size < 1) return value.toFixed(3);
  if (size < 10) return value.toFixed(2);
  return value.toFixed(1);
}

export function signedMs(value: number): string {
  return `${value >= 0 ? '+' : ''}${ms(value)}`;
}

export function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : '–';
}

export function bytes(value: number): string {
  if (value < 1024) return `${value} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KiB`;
  return `${(value / 1024 / 1024).toFixed(2)} MiB`;
}

/** A markdown table; cells are written as given. */
export function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const rule = `|${header.map(() => '---').join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
