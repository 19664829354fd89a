/**
 * Whether a parsed JSON value nests arrays and objects more than `limit` levels deep (a bare
 * `[]` is one level). Iterative, so any depth JSON.parse built can be measured without
 * overflowing the stack, and it stops at the first value past the limit. Only plain arrays and
 * objects are entered: JSON.parse builds nothing else, and a lifted document (a class instance
 * holding its bytes, docs/adr/0007) is a leaf.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const next = values.pop();
    const depth = depths.pop() as number;
    const children = containerChildren(next);
    if (!children) continue;
    if (depth > limit) return true;
    for (const child of children) {
      // Only containers are pushed, so a wide array of scalars costs one pass over it.
      if (typeof child !== 'object' || child === null) continue;
      values.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
}

function containerChildren(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value);
  }
  return undefined;
}
