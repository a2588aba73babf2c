import { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { clusterNodes, connectRedis } from './redis-connection.ts';

describe('REDIS_CLUSTER_NODES', () => {
  it('reads comma-separated host:port seeds, ignoring blanks', () => {
    expect(clusterNodes(' 10.0.0.1:7000, redis-b:7001 ,')).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: 'redis-b', port: 7001 },
    ]);
    expect(clusterNodes('')).toEqual([]);
  });

  it('names the entry that is not host:port', () => {
    expect(() => clusterNodes('10.0.0.1:7000,redis-b')).toThrow(/"redis-b" is not host:port/);
  });

  it('connects to a Cluster when seeds are given, else to REDIS_URL', () => {
    const single = connectRedis(
      { REDIS_URL: 'redis://127.0.0.1:6379/0', REDIS_CLUSTER_NODES: '' },
      { lazyConnect: true },
    );
    const cluster = connectRedis(
      { REDIS_URL: 'redis://user:p%40ss@127.0.0.1:6379/0', REDIS_CLUSTER_NODES: '127.0.0.1:7000' },
      { lazyConnect: true },
    );
    try {
      expect(single).toBeInstanceOf(Redis);
      expect(cluster).toBeInstanceOf(Cluster);
      expect((cluster as Cluster).options.redisOptions).toMatchObject({ username: 'user', password: 'p@ss' });
    } finally {
      single.disconnect();
      cluster.disconnect();
    }
  });
});
