import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';

/**
 * For this package's integration tests: a connection to the tests' Redis (REDIS_URL), more on demand, and fresh
 * announcement namespaces whose keys are deleted once the file's tests are done.
 */
export function testRedis() {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
  const connect = () => new Redis(url, { maxRetriesPerRequest: null });
  const redis = connect();
  const namespaces: string[] = [];
  afterAll(async () => {
    for (const namespace of namespaces) {
      const keys = await redis.keys(`{${namespace}:answers}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    redis.disconnect();
  });
  return {
    redis,
    connect,
    namespace(prefix: string): string {
      const namespace = `${prefix}_${randomBytes(4).toString('hex')}`;
      namespaces.push(namespace);
      return namespace;
    },
  };
}
