import { describe, expect, it } from 'vitest';
import { SessionRegistry } from '../../src/transports/sessions.js';

function fakeSession() {
  const session = {
    closed: false,
    close: async () => {
      session.closed = true;
    },
  };
  return session;
}

describe('SessionRegistry', () => {
  it('reports itself full at the session bound', async () => {
    const registry = new SessionRegistry({ maxSessions: 2, idleMs: 60_000 });
    registry.add('a', fakeSession());
    expect(registry.full).toBe(false);
    registry.add('b', fakeSession());
    expect(registry.full).toBe(true);
    registry.remove('a');
    expect(registry.full).toBe(false);
    await registry.closeAll();
  });

  it('reaps and closes only sessions idle past the bound', async () => {
    const registry = new SessionRegistry({ maxSessions: 10, idleMs: 1_000 });
    const session = fakeSession();
    registry.add('s', session);
    expect(await registry.reapIdle(Date.now() + 500)).toBe(0);
    expect(registry.touch('s')).toBe(session);
    expect(await registry.reapIdle(Date.now() + 5_000)).toBe(1);
    expect(session.closed).toBe(true);
    expect(registry.touch('s')).toBeUndefined();
    await registry.closeAll();
  });

  it('closes every session on shutdown', async () => {
    const registry = new SessionRegistry({ maxSessions: 10, idleMs: 60_000 });
    const sessions = [fakeSession(), fakeSession()];
    for (const [i, session] of sessions.entries()) registry.add(String(i), session);
    await registry.closeAll();
    expect(sessions.every((session) => session.closed)).toBe(true);
    expect(registry.size).toBe(0);
  });
});
