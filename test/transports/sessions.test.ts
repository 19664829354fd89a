import { describe, expect, it } from 'vitest';
import { type SessionLimits, SessionRegistry } from '../../src/transports/sessions.js';

function fakeSession(id: string) {
  const session = {
    id,
    closed: false,
    close: async () => {
      session.closed = true;
    },
  };
  return session;
}

type FakeSession = ReturnType<typeof fakeSession>;

/** A registry on a clock the test moves by hand. */
function registryAt(limits: Partial<SessionLimits>) {
  const clock = { now: 1_000_000 };
  const registry = new SessionRegistry<FakeSession>(
    { maxSessions: 10, idleMs: 60_000, evictableAfterMs: 5_000, engagedEvictableAfterMs: 300_000, ...limits },
    () => clock.now,
  );
  const open = (id: string) => {
    const admission = registry.admit(() => fakeSession(id));
    if (!admission.ok) throw new Error(`${id} refused, retry after ${admission.retryAfterSeconds} s`);
    return admission.session;
  };
  return { clock, registry, open };
}

describe('SessionRegistry', () => {
  it('admits sessions up to the bound, then evicts and closes the one idle longest', async () => {
    const { clock, registry, open } = registryAt({ maxSessions: 3 });
    const a = open('a');
    clock.now += 1_000;
    const b = open('b');
    clock.now += 1_000;
    const c = open('c');
    clock.now += 1_000;
    registry.begin('a');
    registry.end('a');
    clock.now += 10_000;
    const d = open('d');
    expect(registry.size).toBe(3);
    expect([a.closed, b.closed, c.closed, d.closed]).toEqual([false, true, false, false]);
    expect(registry.begin('b')).toBeUndefined();
    const e = open('e');
    expect(c.closed).toBe(true);
    expect(registry.begin('a')).toBe(a);
    expect(registry.begin('e')).toBe(e);
    await registry.closeAll();
  });

  it('never evicts a session with a request in flight, however long it has been running', async () => {
    const { clock, registry, open } = registryAt({ maxSessions: 2 });
    const busy = open('busy');
    registry.begin('busy');
    clock.now += 1_000;
    const idle = open('idle');
    clock.now += 60_000;
    open('new');
    expect(busy.closed).toBe(false);
    expect(idle.closed).toBe(true);
    await registry.closeAll();
  });

  it('counts the end of a request as activity, so a long call just finished is not idle', async () => {
    const { clock, registry, open } = registryAt({ maxSessions: 2 });
    const longCall = open('long-call');
    registry.begin('long-call');
    clock.now += 1_000;
    const quiet = open('quiet');
    clock.now += 30_000;
    registry.end('long-call');
    clock.now += 6_000;
    open('new');
    expect(longCall.closed).toBe(false);
    expect(quiet.closed).toBe(true);
    await registry.closeAll();
  });

  it('evicts an idle session at once however recently it was used: the periods only order the idle (issue 33)', async () => {
    const { clock, registry, open } = registryAt({ maxSessions: 2, evictableAfterMs: 5_000 });
    const a = open('a');
    clock.now += 1;
    open('b');
    // Neither is past its period: the least recently used goes, with no wait and no 503.
    expect(registry.admit(() => fakeSession('c')).ok).toBe(true);
    expect(a.closed).toBe(true);
    await registry.closeAll();
  });

  it('refuses a newcomer only while every session has a request in flight, for a second', async () => {
    const { registry, open } = registryAt({ maxSessions: 2, evictableAfterMs: 0 });
    open('a');
    open('b');
    registry.begin('a');
    registry.begin('b', 'stream');
    registry.begin('b');
    expect(registry.admit(() => fakeSession('c'))).toEqual({ ok: false, retryAfterSeconds: 1 });
    registry.end('b');
    // Its GET stream is still open: a stream is no wall.
    expect(registry.admit(() => fakeSession('c')).ok).toBe(true);
    expect(registry.has('b')).toBe(false);
    expect(registry.has('a')).toBe(true);
    await registry.closeAll();
  });

  it('orders the idle: bare past its period, then engaged past its period, then any, each longest idle first', async () => {
    const { clock, registry, open } = registryAt({
      maxSessions: 4,
      evictableAfterMs: 5_000,
      engagedEvictableAfterMs: 300_000,
    });
    const engage = (id: string) => {
      registry.begin(id);
      registry.engage(id);
      registry.end(id);
    };
    open('engaged-old');
    engage('engaged-old');
    clock.now += 400_000;
    open('engaged-recent');
    engage('engaged-recent');
    clock.now += 1_000;
    open('bare-recent');
    clock.now += 10_000;
    open('bare-handshaking');
    clock.now += 1;
    // engaged-recent: 11 s; bare-recent: 10 s (past 5 s); engaged-old: 411 s (past 300 s).
    const order: string[] = [];
    for (let n = 0; n < 4; n++) {
      const before = new Set(registry.list().map((session) => session.id));
      expect(registry.admit(() => fakeSession(`new-${n}`)).ok).toBe(true);
      for (const id of before) if (!registry.has(id)) order.push(id);
      // A newcomer keeps a call in flight, so only the four above can go.
      registry.begin(`new-${n}`);
    }
    expect(order).toEqual(['bare-recent', 'engaged-old', 'engaged-recent', 'bare-handshaking']);
    await registry.closeAll();
  });

  it('evicts a session that called a tool, when no other is idle, without waiting for its period', async () => {
    const { clock, registry, open } = registryAt({ maxSessions: 1, engagedEvictableAfterMs: 300_000 });
    const thinking = open('thinking');
    registry.begin('thinking');
    registry.engage('thinking');
    registry.end('thinking');
    clock.now += 1_000;
    expect(registry.admit(() => fakeSession('newcomer')).ok).toBe(true);
    expect(thinking.closed).toBe(true);
    await registry.closeAll();
  });

  it('evicts any idle session at once when the floor is 0', async () => {
    const { registry, open } = registryAt({ maxSessions: 1, evictableAfterMs: 0 });
    const a = open('a');
    const b = open('b');
    expect(a.closed).toBe(true);
    expect(registry.begin('b')).toBe(b);
    await registry.closeAll();
  });

  it('bounds the sessions of one caller: its next evicts its own longest idle, never another caller’s (ADR 0054)', async () => {
    const { clock, registry } = registryAt({ maxSessionsPerCaller: 2 });
    const admit = (id: string, owner: string) => {
      const admission = registry.admit(() => fakeSession(id), owner);
      return admission.ok ? admission.session : undefined;
    };
    const bob = admit('bob-old', 'bob') as FakeSession;
    clock.now += 1_000;
    admit('alice', 'alice');
    admit('bob-new', 'bob');
    clock.now += 1_000;
    expect(admit('bob-third', 'bob')).toBeDefined();
    expect(bob.closed).toBe(true);
    expect(registry.has('alice')).toBe(true);
    expect(registry.ownerOf('bob-third')).toBe('bob');
    // With both of Bob's sessions busy, his next waits; Alice is not held up by him.
    registry.begin('bob-new');
    registry.begin('bob-third');
    expect(registry.admit(() => fakeSession('bob-fourth'), 'bob')).toEqual({
      ok: false,
      retryAfterSeconds: 1,
    });
    expect(admit('alice-2', 'alice')).toBeDefined();
  });

  it('opens nothing when it refuses', async () => {
    const { registry, open } = registryAt({ maxSessions: 1 });
    open('a');
    registry.begin('a');
    let opened = false;
    registry.admit(() => {
      opened = true;
      return fakeSession('b');
    });
    expect(opened).toBe(false);
    await registry.closeAll();
  });

  it('reaps and closes only sessions idle past the bound with nothing in flight', async () => {
    const { clock, registry, open } = registryAt({ idleMs: 1_000 });
    const idle = open('idle');
    const busy = open('busy');
    registry.begin('busy');
    clock.now += 500;
    expect(await registry.reapIdle()).toBe(0);
    clock.now += 5_000;
    expect(await registry.reapIdle()).toBe(1);
    expect(idle.closed).toBe(true);
    expect(busy.closed).toBe(false);
    expect(registry.begin('idle')).toBeUndefined();
    await registry.closeAll();
  });

  it('reaps a session whose only activity is a held stream', async () => {
    const { clock, registry, open } = registryAt({ idleMs: 600_000 });
    const held = open('held');
    registry.begin('held', 'stream');
    clock.now += 600_001;
    expect(await registry.reapIdle()).toBe(1);
    expect(held.closed).toBe(true);
    await registry.closeAll();
  });

  it('lets bare sessions evict each other, never a session that called a tool while one of them is past its 5 s (issue 24, M5)', async () => {
    // 200 slots at 25 a second: a bare session is 8 s old when its slot is wanted, past its 5 s.
    const { clock, registry, open } = registryAt({ maxSessions: 200 });
    const thinking = open('thinking');
    registry.begin('thinking');
    registry.engage('thinking');
    registry.end('thinking');
    // Bare initializes at 25 a second for three minutes: each evicts the longest idle bare one.
    for (let n = 0; n < 25 * 180; n++) {
      clock.now += 40;
      expect(registry.admit(() => fakeSession(`bare-${n}`)).ok).toBe(true);
    }
    // The model comes back after three minutes of thought: its session is there.
    expect(registry.begin('thinking')).toBe(thinking);
    registry.end('thinking');
    expect(thinking.closed).toBe(false);
    // Past the longer period with no call, it goes once the bare sessions past theirs have gone.
    clock.now += 300_000;
    for (let n = 0; n < 199; n++) registry.admit(() => fakeSession(`late-${n}`));
    expect(thinking.closed).toBe(false);
    registry.admit(() => fakeSession('late-199'));
    expect(thinking.closed).toBe(true);
    await registry.closeAll();
  });

  it('closes every session on shutdown', async () => {
    const { registry, open } = registryAt({});
    const sessions = [open('0'), open('1')];
    await registry.closeAll();
    expect(sessions.every((session) => session.closed)).toBe(true);
    expect(registry.size).toBe(0);
  });
});
