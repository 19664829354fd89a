import { describe, expect, it } from 'vitest';
import {
  HELD_DOCUMENT_IDLE_MS,
  HELD_DOCUMENT_OVERHEAD_BYTES,
  MAX_HELD_PROCESS_BYTES,
} from '../src/limits.js';
import { handleKey, sameHandle } from '../src/tools/handle-key.js';
import { HeldDocuments } from '../src/tools/held-documents.js';

/** The store alone, with a clock the test moves (docs/adr/0039-handles-outlive-their-connection.md). */
function store(limits: ConstructorParameters<typeof HeldDocuments>[0] = {}) {
  const clock = { now: 0 };
  return { clock, documents: new HeldDocuments({ now: () => clock.now, ...limits }) };
}

const decoded = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : undefined);

describe('the process store of held texts', () => {
  it('answers a handle from any scope: a session, another session, the stateless scope', () => {
    const { documents } = store();
    const a = documents.open();
    const b = documents.open();
    const handle = a.hold('<a/>')?.handle as string;
    expect(decoded(b.get(handle))).toBe('<a/>');
    expect(decoded(documents.stateless.get(handle))).toBe('<a/>');
    const stateless = documents.stateless.hold('<s/>')?.handle as string;
    expect(decoded(a.get(stateless))).toBe('<s/>');
  });

  it('answers an owned handle to its owner only, in any of its scopes, as unknown to another (ADR 0054)', () => {
    const { documents } = store();
    const alice = documents.open('alice');
    const handle = alice.hold('<a/>')?.handle as string;
    expect(decoded(documents.open('alice').get(handle))).toBe('<a/>');
    expect(decoded(documents.statelessFor('alice').get(handle))).toBe('<a/>');
    for (const other of [
      documents.open('bob'),
      documents.statelessFor('bob'),
      documents.open(),
      documents.stateless,
    ]) {
      expect(other.get(handle)).toBeUndefined();
      expect(other.holds(handle)).toBe(false);
    }
    // The same text sent by another subject is another document under another handle.
    const bobs = documents.statelessFor('bob').hold('<a/>');
    expect(bobs?.fresh).toBe(true);
    expect(bobs?.handle).not.toBe(handle);
    expect(documents.statelessFor('alice').hold('<a/>')?.fresh).toBe(true);
    expect(documents.statelessFor('alice')).toBe(documents.statelessFor('alice'));
    // Filed under a key its owner is part of: without authentication the key is as it was.
    expect(handleKey(handle, 'alice')).not.toBe(handleKey(handle));
    expect(handleKey(handle, 'alice')).not.toBe(handleKey(handle, 'bob'));
  });

  it('expires a text 30 minutes after its last use, whoever used it', () => {
    const { clock, documents } = store();
    const a = documents.open();
    const handle = a.hold('<a/>')?.handle as string;
    clock.now = HELD_DOCUMENT_IDLE_MS - 1;
    expect(documents.open().get(handle)).toBeDefined();
    clock.now += HELD_DOCUMENT_IDLE_MS - 1;
    expect(a.holds(handle)).toBe(true);
    clock.now += 1;
    expect(a.holds(handle)).toBe(false);
    expect(a.get(handle)).toBeUndefined();
    expect(documents.size).toBe(0);
    expect(a.size).toBe(0);
    expect(a.bytes).toBe(0);
  });

  it('frees expired texts when swept, with no call to look at them', () => {
    const { clock, documents } = store();
    documents.stateless.hold('<a/>');
    documents.open().hold('<b/>');
    clock.now = HELD_DOCUMENT_IDLE_MS;
    documents.expire();
    expect(documents.size).toBe(0);
    expect(documents.bytes).toBe(0);
  });

  it('never expires with an infinite idle time (stdio), only by the bounds and the end', () => {
    const { clock, documents } = store({ idleMs: Number.POSITIVE_INFINITY });
    const session = documents.open();
    const handle = session.hold('<a/>')?.handle as string;
    clock.now = 1e12;
    expect(decoded(session.get(handle))).toBe('<a/>');
    session.close();
    expect(session.get(handle)).toBeUndefined();
  });

  it("frees a session's texts at once when it ends, and leaves the stateless scope's", () => {
    const { documents } = store();
    const session = documents.open();
    session.hold('<a/>');
    const kept = documents.stateless.hold('<s/>')?.handle as string;
    session.close();
    expect(documents.size).toBe(1);
    expect(documents.bytes).toBe('<s/>'.length + HELD_DOCUMENT_OVERHEAD_BYTES);
    expect(documents.stateless.holds(kept)).toBe(true);
    expect(session.hold('<late/>')).toBeUndefined();
  });

  it("bounds the stateless scope by the process bound, not a session's", () => {
    const { documents } = store({ sessionBytes: 1024 + HELD_DOCUMENT_OVERHEAD_BYTES });
    const text = `<r>${'x'.repeat(4096)}</r>`;
    expect(documents.open().hold(text)).toBeUndefined();
    expect(documents.stateless.hold(text)).toBeDefined();
    expect(documents.limits.processBytes).toBe(MAX_HELD_PROCESS_BYTES);
  });

  it('misses a handle that differs from a held one in any single character', () => {
    const { documents } = store();
    const handle = documents.stateless.hold('<a/>')?.handle as string;
    for (let i = 2; i < handle.length; i++) {
      const other = `${handle.slice(0, i)}${handle[i] === 'A' ? 'B' : 'A'}${handle.slice(i + 1)}`;
      expect(documents.stateless.get(other)).toBeUndefined();
    }
    expect(documents.stateless.get(`${handle}A`)).toBeUndefined();
    expect(documents.stateless.get(handle)).toBeDefined();
  });
});

describe('handle keys', () => {
  it('files a handle under its SHA-256, never the handle itself', () => {
    const handle = 'd_3kq1vX0bN6rU2yP8cL4mZw';
    const key = handleKey(handle);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(key).not.toContain(handle.slice(2));
    expect(handleKey(handle)).toBe(key);
  });

  it('compares handles of any lengths without throwing', () => {
    expect(sameHandle('d_a', 'd_a')).toBe(true);
    expect(sameHandle('d_a', 'd_b')).toBe(false);
    expect(sameHandle('d_a', 'd_ab')).toBe(false);
    expect(sameHandle('d_é', 'd_e')).toBe(false);
  });
});
