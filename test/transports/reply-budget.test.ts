import { PassThrough } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ReplyBudget } from '../../src/transports/reply-budget.js';

const request = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

describe('ReplyBudget', () => {
  it('owes only what a request made owed: a message with its id and no method settles nothing (issue 24, M4)', () => {
    const budget = new ReplyBudget(new PassThrough(), { maxUnwrittenBytes: 1000, maxInFlightBytes: 10 });
    expect(budget.received({ jsonrpc: '2.0', id: 1, method: 'tools/call' }, 20)).toBe(1);
    expect(budget.received({ jsonrpc: '2.0', id: 1 }, 20)).toBeUndefined();
    expect(budget.owed).toBe(1);
    expect(budget.open).toBe(false);
  });

  it('lets messages arriving together in one at a time, so each is counted before the next', async () => {
    const budget = new ReplyBudget(new PassThrough(), { maxUnwrittenBytes: 1000, maxInFlightBytes: 10 });
    const read: number[] = [];
    const admit = (id: number) =>
      budget.admit(async () => {
        read.push(id);
        budget.received(request(id), 10);
      });
    const first = admit(1);
    const second = admit(2);
    await first;
    for (let i = 0; i < 3; i++) await tick();
    expect(read).toEqual([1]);
    expect(budget.waiting).toBe(1);
    budget.answered(1);
    await second;
    expect(read).toEqual([1, 2]);
  });

  it('holds messages while the stream has more than the bound unwritten, and lets them in on drain', async () => {
    const stream = new PassThrough({ highWaterMark: 16 });
    const budget = new ReplyBudget(stream, { maxUnwrittenBytes: 100, maxInFlightBytes: 1000 });
    stream.write('x'.repeat(200));
    let admitted = false;
    const next = budget.admit(async () => {
      admitted = true;
    });
    for (let i = 0; i < 3; i++) await tick();
    expect(admitted).toBe(false);
    stream.resume();
    await next;
    expect(admitted).toBe(true);
  });

  it('owes nothing once its stream has closed', async () => {
    const stream = new PassThrough();
    const budget = new ReplyBudget(stream, { maxUnwrittenBytes: 100, maxInFlightBytes: 10 });
    budget.received(request(1), 10);
    const next = budget.admit(async () => 'read');
    stream.destroy();
    await expect(next).resolves.toBe('read');
    expect(budget.owed).toBe(0);
  });

  it('names an id still owed an answer, so a request reusing it can be refused, and frees it on the answer', () => {
    const budget = new ReplyBudget(new PassThrough(), { maxUnwrittenBytes: 1000, maxInFlightBytes: 1000 });
    expect(budget.reusedId(request(1))).toBeUndefined();
    budget.received(request(1), 10);
    expect(budget.reusedId(request(1))).toBe(1);
    expect(budget.reusedId(request(2))).toBeUndefined();
    // A notification or a reply carrying the id is no new request.
    expect(budget.reusedId({ jsonrpc: '2.0', id: 1, result: {} })).toBeUndefined();
    budget.answered(1);
    expect(budget.reusedId(request(1))).toBeUndefined();
    expect(budget.owed).toBe(0);
  });
});
