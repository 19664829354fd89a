import { ReplyError } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { faultKind, StoreFaults } from '../src/tools/shared-store/store-faults.js';

/*
 * How a failed store command is told and counted (docs/adr/0052), from the errors ioredis itself
 * rejects with. The clock is set by hand only to cross the log window.
 */

afterEach(() => {
  vi.useRealTimers();
});

describe('the kind of a failed store command', () => {
  it.each([
    ['Command timed out', new Error('Command timed out'), 'timeout'],
    [
      'a MOVED a single-store client does not follow',
      new ReplyError('MOVED 3274 127.0.0.1:7101'),
      'redirect',
    ],
    ['an ASK', new ReplyError('ASK 3274 127.0.0.1:7102'), 'redirect'],
    [
      'a write refused under maxmemory',
      new ReplyError("OOM command not allowed when used memory > 'maxmemory'."),
      'refused',
    ],
    [
      'a write to a replica',
      new ReplyError("READONLY You can't write against a read only replica."),
      'refused',
    ],
    ['a cluster down', new ReplyError('CLUSTERDOWN The cluster is down'), 'refused'],
    ['a connection closed', new Error('Connection is closed.'), 'unreachable'],
    ['a refused connection', new Error('connect ECONNREFUSED 127.0.0.1:7101'), 'unreachable'],
    [
      "a cluster's retries run out on a node gone",
      new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'),
      'unreachable',
    ],
    [
      "a cluster's retries run out on redirects",
      new Error('Too many Cluster redirections. Last error: ReplyError: MOVED 1 127.0.0.1:7101'),
      'redirect',
    ],
    [
      "a cluster's retries run out on TRYAGAIN",
      new Error(
        'Too many Cluster redirections. Last error: ReplyError: TRYAGAIN Multiple keys request during rehashing of slot',
      ),
      'refused',
    ],
  ])('calls %s what it is', (_what, error, kind) => {
    expect(faultKind(error)).toBe(kind);
  });
});

describe('the log of store faults', () => {
  it('tells the first fault of a kind at a node at once, then at most once a window, saying how many went untold', () => {
    vi.useFakeTimers({ now: 0 });
    const lines: string[] = [];
    const faults = new StoreFaults('redis://127.0.0.1:7101', (line) => lines.push(line));

    faults.note('timeout', '127.0.0.1:7101', 'Command timed out');
    expect(lines).toEqual([
      'shared store redis://127.0.0.1:7101: a command timed out at 127.0.0.1:7101: Command timed out',
    ]);
    for (let i = 0; i < 50; i++) faults.note('timeout', '127.0.0.1:7101', 'Command timed out');
    // Another node, another kind: each told at once.
    faults.note('timeout', '127.0.0.1:7102', 'Command timed out');
    faults.note('refused', '127.0.0.1:7101', 'OOM command not allowed');
    expect(lines).toHaveLength(3);

    vi.setSystemTime(10_000);
    faults.note('timeout', '127.0.0.1:7101', 'Command timed out');
    expect(lines.at(-1)).toBe(
      'shared store redis://127.0.0.1:7101: a command timed out at 127.0.0.1:7101: Command timed out (and 50 more since the last line)',
    );
    expect(faults.counts).toEqual({
      timeouts: 53,
      redirects: 0,
      refused: 1,
      unreachable: 0,
      failovers: 0,
      migrations: 0,
    });
  });
});
