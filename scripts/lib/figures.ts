/** The median of `values` (the mean of the middle two for an even count). */
export function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

/** The value at the middle of `values` sorted (the upper of the two middle ones for an even count). */
export function middleValue(values: readonly number[]): number {
  return [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? Number.NaN;
}

/** The p-th percentile of values already sorted ascending (NaN for none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** `list` grouped by each item's label, in the order labels first appear. */
export function groupByLabel<T extends { label?: string }>(list: readonly T[]): Map<string | undefined, T[]> {
  const map = new Map<string | undefined, T[]>();
  for (const item of list) map.set(item.label, [...(map.get(item.label) ?? []), item]);
  return map;
}
