import { HeldDocuments } from '../held-documents.js';
import { connectRedisTexts } from './redis-texts.js';
import { SharedDocuments } from './shared-documents.js';

/**
 * The store for `--store URL` (docs/adr/0041), a cluster with `--store-cluster` (docs/adr/0052):
 * this process's own store in front of the shared one. Resolves at once, connected or not: a
 * store that is down is refused call by call and used again once it is back, never a reason not
 * to serve.
 */
export async function openSharedStore(
  url: string,
  cluster: boolean,
  log: (line: string) => void,
): Promise<SharedDocuments> {
  const remote = await connectRedisTexts(url, log, { cluster });
  return new SharedDocuments(new HeldDocuments(), remote);
}
