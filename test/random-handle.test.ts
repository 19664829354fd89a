import { describe, expect, it } from 'vitest';
import { newHandle } from '../src/tools/random-handle.js';

describe('newHandle', () => {
  it('hands out each slice of its random pool once, across refills', () => {
    // 64 handles per refill: 1,000 cross fifteen refills.
    const handles = Array.from({ length: 1_000 }, newHandle);
    for (const handle of handles) expect(handle).toMatch(/^d_[A-Za-z0-9_-]{22}$/);
    expect(new Set(handles).size).toBe(handles.length);
  });

  it('draws fresh bits at each refill rather than repeating the last pool', () => {
    const first = Array.from({ length: 64 }, newHandle);
    const second = Array.from({ length: 64 }, newHandle);
    expect(new Set([...first, ...second]).size).toBe(128);
  });
});
