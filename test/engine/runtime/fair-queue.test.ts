import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../../src/engine/runtime/fair-queue.js';

describe('FairQueue', () => {
  it('serves clients in turn, each in its own order', () => {
    const queue = new FairQueue<string>();
    for (const item of ['a1', 'a2', 'a3', 'a4']) queue.push('a', item);
    queue.push('b', 'b1');
    queue.push('c', 'c1');
    queue.push('b', 'b2');
    const order: string[] = [];
    // `peek` names the item `shift` gives next (the pool picks that call's worker by it).
    for (let item = queue.peek(); item !== undefined; item = queue.peek()) {
      expect(queue.shift()).toBe(item);
      order.push(item);
    }
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
    expect(queue.size).toBe(0);
  });

  it('removes a waiting item and keeps the count right', () => {
    const queue = new FairQueue<string>();
    queue.push('a', 'x');
    queue.push('a', 'y');
    expect(queue.remove('a', 'x')).toBe(true);
    expect(queue.remove('a', 'x')).toBe(false);
    expect(queue.size).toBe(1);
    expect(queue.drain()).toEqual(['y']);
    expect(queue.size).toBe(0);
  });
});
