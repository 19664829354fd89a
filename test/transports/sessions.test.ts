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

  it('refuses while no session has been idle past the floor, with the seconds until one will be', async () => {
    const { clock, registry, open } = registryAt({ maxSessions: 2, evictableAfterMs: 5_000 });
    const a = open('a');
    clock.now += 1_500;
    open('b');
    clock.now += 1_000;
    // `a` has been idle 2.5 s: 2.5 s short of the floor, rounded up.
    expect(registry.admit(() => fakeSession('c'))).toEqual({ ok: false, retryAfterSeconds: 3 });
    clock.now += 2_400;
    expect(registry.admit(() => fakeSession('c'))).toEqual({ ok: false, retryAfterSeconds: 1 });
    clock.now += 100;
    expect(registry.admit(() => fakeSession('c')).ok).toBe(true);
    expect(a.closed).toBe(true);
    await registry.closeAll();
  });

  it('asks a newcomer to wait the whole floor when every session is busy, and at least a second', async () => {
    const slow = registryAt({ maxSessions: 1, evictableAfterMs: 5_000 });
    slow.open('a');
    slow.registry.begin('a');
    slow.clock.now += 60_000;
    expect(slow.registry.admit(() => fakeSession('b'))).toEqual({ ok: false, retryAfterSeconds: 5 });
    await slow.registry.closeAll();

    const none = registryAt({ maxSessions: 1, evictableAfterMs: 0 });
    none.open('a');
    none.registry.begin('a');
    expect(none.registry.admit(() => fakeSession('b'))).toEqual({ ok: false, retryAfterSeconds: 1 });
    await none.registry.closeAll();
  });

  it('evicts any idle session at once when the floor is 0', async () => {
    const { registry, open } = registryAt({ maxSessions: 1, evictableAfterMs: 0 });
    const a = open('a');
    const b = open('b');
    expect(a.closed).toBe(true);
    expect(registry.begin('b')).toBe(b);
    await registry.closeAll();
  });

  it('opens nothing when it refuses', async () => {
    const { registry, open } = registryAt({ maxSessions: 1 });
    open('a');
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

  it('reaps a session whose only activity is a held stream, and keeps it from newcomers only for the longer floor', async () => {
    const { clock, registry, open } = registryAt({
      idleMs: 600_000,
      maxSessions: 1,
      evictableAfterMs: 0,
      engagedEvictableAfterMs: 60_000,
    });
    const held = open('held');
    registry.begin('held', 'stream');
    clock.now += 500;
    // Full, and the one session holds a stream: a newcomer waits the rest of the longer floor.
    expect(registry.admit(() => fakeSession('new'))).toEqual({ ok: false, retryAfterSeconds: 60 });
    clock.now += 60_000;
    // A stream is no wall (issue 24, M5): past the floor, a newcomer takes the slot.
    expect(registry.admit(() => fakeSession('new')).ok).toBe(true);
    expect(held.closed).toBe(true);
    await registry.closeAll();
  });

  it('lets bare sessions evict each other, never a session that called a tool within the longer floor (issue 24, M5)', async () => {
    const { clock, registry, open } = registryAt({ maxSessions: 4 });
    const thinking = open('thinking');
    registry.begin('thinking');
    registry.engage('thinking');
    registry.end('thinking');
    // Bare initializes at 25 a second for three minutes: each evicts a bare one past 5 s.
    for (let n = 0; n < 25 * 180; n++) {
      clock.now += 40;
      const admission = registry.admit(() => fakeSession(`bare-${n}`));
      if (n >= 3) expect(admission.ok || admission.retryAfterSeconds <= 5).toBe(true);
    }
    // The model comes back after three minutes of thought: its session is there.
    expect(registry.begin('thinking')).toBe(thinking);
    registry.end('thinking');
    expect(thinking.closed).toBe(false);
    // Past the longer floor with no call, it may go like any other.
    clock.now += 300_000;
    for (let n = 0; n < 4; n++) registry.admit(() => fakeSession(`late-${n}`));
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
