import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisSemaphore } from './redis-semaphore.ts';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0', { maxRetriesPerRequest: null });
const other = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0', { maxRetriesPerRequest: null });
const prefix = `t_semaphore_${randomBytes(4).toString('hex')}`;

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  other.disconnect();
});

describe('RedisSemaphore: slots shared by every process through Redis', () => {
  it('gives at most `limit` holders a slot across two connections (two processes), and a released slot again', async () => {
    const a = new RedisSemaphore(redis, { prefix, limit: 2, staleMs: 60_000 });
    const b = new RedisSemaphore(other, { prefix, limit: 2, staleMs: 60_000 });
    const taken = await Promise.all(['h1', 'h2', 'h3', 'h4'].map((h, i) => (i % 2 ? a : b).take('c1', h)));
    expect(taken.filter(Boolean)).toHaveLength(2);
    const holders = await redis.zrange(`${prefix}:c1`, '0', '-1');
    expect(holders).toHaveLength(2);
    // Another name is another semaphore.
    expect(await a.take('c2', 'h5')).toBe(true);
    await a.release('c1', holders[0]!);
    expect(await b.take('c1', 'h6')).toBe(true);
    expect(await b.take('c1', 'h7')).toBe(false);
  });

  it('lets a holder take its own slot again (a refresh), without counting it twice', async () => {
    const slots = new RedisSemaphore(redis, { prefix, limit: 1, staleMs: 60_000 });
    expect(await slots.take('again', 'h')).toBe(true);
    expect(await slots.take('again', 'h')).toBe(true);
    expect(await redis.zcard(`${prefix}:again`)).toBe(1);
  });

  it("frees the slot of a holder that stopped beating (its process died), and keeps a beating one's", async () => {
    const slots = new RedisSemaphore(redis, { prefix, limit: 1, staleMs: 300 });
    expect(await slots.take('stale', 'dead')).toBe(true);
    expect(await slots.take('stale', 'next')).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await slots.take('stale', 'next')).toBe(true);
    // A holder that beats keeps its slot past the stale time.
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      await slots.heartbeat('stale', 'next');
    }
    expect(await slots.take('stale', 'late')).toBe(false);
    expect(await redis.pttl(`${prefix}:stale`)).toBeGreaterThan(0);
  });

  it('refuses a limit below one when it is built', () => {
    expect(() => new RedisSemaphore(redis, { prefix, limit: 0, staleMs: 1 })).toThrow(RangeError);
  });
});
