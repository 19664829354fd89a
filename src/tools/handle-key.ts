import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * A handle is a bearer capability (docs/adr/0039-handles-outlive-their-connection.md): whoever
 * presents it gets the text it names. The store files a document under the SHA-256 of its
 * handle, never the handle itself, so how long a lookup takes depends on a digest the presenter
 * cannot steer character by character, and a store that is read or dumped (a shared one later,
 * issue 23) holds no handle anyone could present.
 */
export function handleKey(handle: string, owner?: string): string {
  const hash = createHash('sha256');
  // With authentication on, the caller's subject is part of the key (docs/adr/0054): another
  // subject presenting the same handle looks up another key, and misses. A handle has one fixed
  // shape and no line break, so `owner\nhandle` cannot be read two ways. Without an owner the key
  // is what it always was, so a store written before is read the same.
  if (owner !== undefined) hash.update(owner).update('\n');
  return hash.update(handle).digest('base64url');
}

/** The presented handle against the one held, in time independent of where they differ. */
export function sameHandle(held: string, presented: string): boolean {
  const a = Buffer.from(held);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}
