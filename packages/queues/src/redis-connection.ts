import { Cluster, Redis, type RedisOptions } from 'ioredis';

/**
 * One Redis or a Redis Cluster. Every command the platform sends touches one key, or keys sharing a hash tag (BullMQ's
 * queues, see queuePrefix), so both run the same code; see docs/scaling.md.
 */
export type RedisClient = Redis | Cluster;

export interface RedisAddress {
  readonly REDIS_URL: string;
  /** Comma-separated `host:port` seeds of a Redis Cluster; empty means the single Redis at REDIS_URL. */
  readonly REDIS_CLUSTER_NODES: string;
}

export function clusterNodes(list: string): { host: string; port: number }[] {
  return list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const match = /^(.+):(\d{1,5})$/.exec(entry);
      if (!match?.[1] || !match[2]) throw new Error(`REDIS_CLUSTER_NODES: "${entry}" is not host:port`);
      return { host: match[1], port: Number(match[2]) };
    });
}

/**
 * A client of the configured Redis. With REDIS_CLUSTER_NODES it is an ioredis Cluster seeded from those nodes (it
 * learns the others and follows MOVED/ASK after a failover); credentials and TLS (`rediss:`) still come from REDIS_URL.
 */
export function connectRedis(address: RedisAddress, options: RedisOptions = {}): RedisClient {
  const nodes = clusterNodes(address.REDIS_CLUSTER_NODES);
  if (nodes.length === 0) return new Redis(address.REDIS_URL, options);
  const url = new URL(address.REDIS_URL);
  return new Cluster(nodes, {
    redisOptions: {
      ...options,
      ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
      ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
      ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
    },
    // A promoted replica takes over within a second or two; commands wait for the new slot map rather than fail.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
  });
}

/** A second connection like `client` (subscribers and BullMQ's blocking workers need their own). */
export function duplicateRedis(client: RedisClient): RedisClient {
  return client instanceof Cluster ? client.duplicate() : client.duplicate();
}
