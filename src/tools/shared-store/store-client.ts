import type { Cluster, Redis, RedisOptions } from 'ioredis';

/*
 * The ioredis client for `--store URL` (docs/adr/0041), or for a Redis Cluster with
 * `--store-cluster` (docs/adr/0052). Every command is bounded: none waits for a connection (no
 * offline queue), none is retried by us, none waits longer than COMMAND_MS for its reply, the
 * cluster's own redirections and failover retries included; the client reconnects by itself,
 * forever, so a store that comes back is used again without a restart.
 */

export type StoreClient = Redis | Cluster;

/** Long enough for an 8 MiB text on a private network; short enough that a call is not held up. */
const COMMAND_MS = 2_000;
const CONNECT_MS = 2_000;
/** Reconnection: quickly at first, then every two seconds while the store stays away. */
const RETRY_MS = (attempt: number) => Math.min(100 * 2 ** Math.min(attempt, 5), 2_000);
/**
 * A cluster's slot map is read again this often even when no command was redirected, so that a
 * failover or a migration is noticed (and logged) while the process is idle too.
 */
const SLOTS_REFRESH_MS = 5_000;

const BOUNDS = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: COMMAND_MS,
  connectTimeout: CONNECT_MS,
} as const;

/**
 * The client, loaded only when a store is asked for: one process without one pays nothing.
 * `overrides` lets a test widen a bound of each connection, never change the rest.
 */
export async function newStoreClient(
  url: string,
  cluster: boolean,
  overrides: Partial<RedisOptions> = {},
): Promise<StoreClient> {
  // Through the default export (module.exports): a bundle's dynamic import of a CommonJS module
  // carries only that, and ioredis's module.exports is the class, with `.Redis` and `.Cluster` on it.
  const ioredis = (await import('ioredis')).default;
  // No auto-pipelining: it sends a batch only once the one before it has settled, so behind a
  // fetch waiting on a frozen store a text's write waited out that fetch's bound before its own
  // (4 s, docs/adr/0051 F6). Each command goes out at once, under its own bound.
  if (!cluster)
    return new ioredis.Redis(url, {
      ...BOUNDS,
      retryStrategy: RETRY_MS,
      enableAutoPipelining: false,
      ...overrides,
    });
  const { protocol, hostname, port, username, password } = new URL(url);
  return new ioredis.Cluster([{ host: hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(port || 6379) }], {
    // The cluster's own queue too: a command while it is not ready fails at once.
    enableOfflineQueue: false,
    // Reads go to primaries only: the fetch restarts a TTL (a write), and a replica may lag.
    scaleReads: 'master',
    // No auto-pipelining: ioredis follows a MOVED in a batch only when the whole batch can be
    // sent again, so during a slot migration a command batched with others that succeeded would
    // come back refused. Each command is written at once on its node's connection, without
    // waiting for the reply before it, so many commands still take about one round trip.
    enableAutoPipelining: false,
    clusterRetryStrategy: RETRY_MS,
    slotsRefreshInterval: SLOTS_REFRESH_MS,
    // Every node the cluster names is reached with the seed's credentials and TLS.
    redisOptions: {
      ...BOUNDS,
      ...(username === '' ? {} : { username: decodeURIComponent(username) }),
      ...(password === '' ? {} : { password: decodeURIComponent(password) }),
      ...(protocol === 'rediss:' ? { tls: {} } : {}),
      ...overrides,
    },
  });
}
