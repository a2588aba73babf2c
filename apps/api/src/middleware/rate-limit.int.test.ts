import { randomUUID } from 'node:crypto';
import { readEnv } from '@conduit/config';
import { Hono } from 'hono';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApiEnv } from '../deps.ts';
import { problemResponse } from '../problem.ts';
import { rateLimit, redisBudget } from './rate-limit.ts';
import { type ConsumeShared, RateLimitLeases } from './rate-limit-leases.ts';

const redis = new Redis(readEnv().REDIS_URL);
afterAll(() => redis.quit());

/** One API instance's limiter over the shared Redis budget of `prefix`, answering GET /. */
function instance(prefix: string, limit: number) {
  return new Hono<ApiEnv>()
    .onError((error, c) => problemResponse(c, error))
    .use('*', async (c, next) => {
      c.set('auth', { clientId: c.req.header('x-client') ?? 'client-a', organizationId: 'org' });
      await next();
    })
    .use('*', rateLimit({ redis, prefix, limit, windowSeconds: 60 }))
    .get('/', (c) => c.json({ ok: true }))
    .get('/own', () => new Response('bytes', { headers: { 'content-type': 'application/octet-stream' } }));
}

/** Shared points taken so far by a client, straight from the sliding-window hash. */
async function takenPoints(prefix: string, clientId: string): Promise<number> {
  return Number(await redis.hget(`${prefix}:ratelimit:${clientId}`, 'c'));
}

describe('rateLimit over leases of the shared Redis budget', () => {
  it('admits exactly the limit across two instances sharing one client, then refuses with Retry-After', async () => {
    const prefix = `test-${randomUUID()}`;
    const limit = 700;
    const instances = [instance(prefix, limit), instance(prefix, limit)];
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    // 8 concurrent callers per instance, 1000 requests in all: leases are taken while others are in flight.
    const calls = Array.from({ length: 1000 }, (_, i) => i);
    await Promise.all(
      Array.from({ length: 16 }, async (_, worker) => {
        for (let i = calls.pop(); i !== undefined; i = calls.pop()) {
          const response = await instances[worker % 2]!.request('/');
          statuses.push(response.status);
          if (response.status === 429) retryAfter = response.headers.get('retry-after');
        }
      }),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1000 - limit);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(await takenPoints(prefix, 'client-a')).toBe(limit);
  });

  it('counts down ratelimit-remaining one per request while spending a lease', async () => {
    const prefix = `test-${randomUUID()}`;
    const app = instance(prefix, 1000);
    const remaining: number[] = [];
    for (let i = 0; i < 20; i++) {
      const response = await app.request('/');
      expect(response.headers.get('ratelimit-limit')).toBe('1000');
      remaining.push(Number(response.headers.get('ratelimit-remaining')));
    }
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => 999 - i));
    // Leases take points before they are spent: all 20 spent are counted in Redis already.
    expect(await takenPoints(prefix, 'client-a')).toBeGreaterThanOrEqual(20);
  });

  it('keeps each client to its own budget', async () => {
    const prefix = `test-${randomUUID()}`;
    const app = instance(prefix, 2);
    const statusesOf = async (client: string) => {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await app.request('/', { headers: { 'x-client': client } })).status);
      return statuses;
    };
    expect(await statusesOf('client-a')).toEqual([200, 200, 429]);
    expect(await statusesOf('client-b')).toEqual([200, 200, 429]);
  });

  it('puts the ratelimit headers on a Response the handler built itself', async () => {
    const response = await instance(`test-${randomUUID()}`, 10).request('/own');
    expect(response.headers.get('ratelimit-limit')).toBe('10');
    expect(response.headers.get('ratelimit-remaining')).toBe('9');
    expect(await response.text()).toBe('bytes');
  });
});

describe('RateLimitLeases', () => {
  /** The real shared budget (redisBudget: the sliding-window script in Redis), counting the points asked for. */
  function counted(limit: number) {
    const calls: number[] = [];
    const budget = redisBudget({ redis, prefix: `test-${randomUUID()}`, limit, windowSeconds: 60 });
    const consume: ConsumeShared = (clientId, points) => {
      calls.push(points);
      return budget(clientId, points);
    };
    return { calls, consume };
  }

  it('spares the shared round trip for most requests of a busy client, growing leases up to the cap', async () => {
    const { calls, consume } = counted(1_000_000);
    const leases = new RateLimitLeases({ consume, maxPoints: 64 });
    for (let i = 0; i < 1000; i++) expect((await leases.admit('c')).admitted).toBe(true);
    expect(calls.slice(0, 8)).toEqual([1, 2, 4, 8, 16, 32, 64, 64]);
    expect(calls.length).toBeLessThan(25);
  });

  it('sizes the next lease by what an expired one spent, and never takes more than a share of what is left', async () => {
    let now = 0;
    const { calls, consume } = counted(1_000_000);
    const leases = new RateLimitLeases({ consume, now: () => now, leaseMs: 1000, maxPoints: 64 });
    for (let i = 0; i < 7; i++) await leases.admit('c'); // leases of 1, 2, 4: the last one is spent
    now += 5000; // the lease of 4 expired fully spent: the next doubles
    for (let i = 0; i < 3; i++) await leases.admit('c'); // a lease of 8, 3 spent
    now += 5000;
    await leases.admit('c');
    expect(calls).toEqual([1, 2, 4, 8, 3]);

    const small = counted(100);
    const near = new RateLimitLeases({ consume: small.consume, share: 32 });
    for (let i = 0; i < 100; i++) expect((await near.admit('c')).admitted).toBe(true);
    expect(await near.admit('c')).toMatchObject({ admitted: false, remaining: 0 });
    // 99 left after the first: at most 99/32 = 3 per lease.
    expect(Math.max(...small.calls)).toBeLessThanOrEqual(3);
  });

  it('falls back to one point when a lease does not fit, and admits what still fits', async () => {
    const { calls, consume } = counted(10);
    const a = new RateLimitLeases({ consume, share: 1 });
    const b = new RateLimitLeases({ consume, share: 1 });
    const admitted = [];
    // Past the limit, an instance may still spend the lease it holds while the other is refused; in all, 10.
    for (let i = 0; i < 30; i++) admitted.push((await (i % 2 ? b : a).admit('c')).admitted);
    expect(admitted.filter(Boolean)).toHaveLength(10);
    expect(admitted.slice(-4)).toEqual([false, false, false, false]);
    expect(calls).toContain(1);
  });

  it('lets requests waiting on a failed lease ask again themselves', async () => {
    let fail = true;
    const leases = new RateLimitLeases({
      consume: async () => {
        if (fail) {
          fail = false;
          throw new Error('redis is down');
        }
        return { admitted: true, remaining: 100 };
      },
    });
    const results = await Promise.allSettled([leases.admit('c'), leases.admit('c')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
  });
});
