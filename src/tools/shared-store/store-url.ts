/*
 * `--store URL`: the shared store of held texts (docs/adr/0041). Redis or Valkey, plain
 * (`redis://`) or over TLS (`rediss://`); a user and password in the URL are the store's AUTH
 * (`requirepass` or an ACL user), and are never printed.
 */

const SCHEMES = new Set(['redis:', 'rediss:']);

/** Why `url` cannot name a store (one node of a cluster, with `cluster`), or undefined when it can. */
export function storeUrlProblem(url: string, cluster = false): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '--store must be a URL such as redis://127.0.0.1:6379';
  }
  if (!SCHEMES.has(parsed.protocol)) return '--store takes a redis:// or rediss:// URL (Redis or Valkey)';
  if (parsed.hostname === '') return '--store needs a host: redis://HOST:PORT';
  // A cluster has database 0 only (docs/adr/0052).
  if (cluster && !/^\/?0?$/.test(parsed.pathname))
    return '--store-cluster: a Redis Cluster has database 0 only; leave the database out of the --store URL';
  return undefined;
}

/** The URL as logs and errors may show it: scheme, host, port and database, no credentials. */
export function shownStoreUrl(url: string): string {
  try {
    const { protocol, host, pathname } = new URL(url);
    return `${protocol}//${host}${pathname === '/' ? '' : pathname}`;
  } catch {
    return '(the --store URL)';
  }
}
