import { randomBytes } from 'node:crypto';
import { type ApiRuntime, buildApp, rateLimit } from '@conduit/api';
import { hashClientSecret } from '@conduit/config';
import { connectorChangesChannel } from '@conduit/queues';
import { Hono } from 'hono';
import { UnsupportedPathError } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { testServices } from '../harness/services.ts';

/**
 * The search hot path's shortcuts keep the API's guarantees: the connector cache is invalidated on PATCH and
 * DELETE across API instances and never shows one organization another's connector; the rate limit is a
 * sliding window shared by every instance.
 */
describe('connector cache across two API instances', () => {
  let platform: TestPlatform;
  let second: ApiRuntime;
  let secondApp: ReturnType<typeof buildApp>;
  let token: string;

  beforeAll(async () => {
    platform = await startTestPlatform({ worker: false });
    // A second API instance on the same database, Redis and namespace, as a scaled-out deployment runs them.
    second = await platform.secondApi();
    secondApp = buildApp(second.deps);
    token = await platform.token();
  });
  afterAll(async () => {
    await second?.close();
    await platform?.close();
  });

  const insert = async () => {
    const row = await platform.api.deps.connectors.insert({
      id: crypto.randomUUID(),
      organization_id: platform.organizationId,
      connector_type: 'Orb',
      customer_name: 'cache',
      name: `cache-${randomBytes(3).toString('hex')}`,
      credentials_ciphertext: platform.api.deps.cipher.encrypt({ api_key: 'k' }),
      config: JSON.stringify({}),
      replication_config: JSON.stringify({ start_date: '2024-01-01T00:00:00Z' }),
    });
    return row.id;
  };
  const searchOnSecond = (id: string, bearer = token) =>
    secondApp.request(`/api/v1/integrations/connectors/${id}/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ entity: 'customers', action: 'search', params: { query: {}, limit: 1 } }),
    });

  it('answers searches from the cache (a row removed behind the API stays found until invalidated)', async () => {
    const id = await insert();
    expect((await searchOnSecond(id)).status).toBe(200);
    expect(second.deps.connectorCache.has(id)).toBe(true);
    // Deleting the row without going through the API publishes nothing: the second instance still has it.
    await platform.api.deps.connectors.delete(platform.organizationId, id);
    expect((await searchOnSecond(id)).status).toBe(200);
    // Going through the API (on the first instance) reaches the second one.
    await platform.api.deps.connectorCache.invalidate(id);
    await eventually(async () => ((await searchOnSecond(id)).status === 404 ? true : undefined), 2000, 10);
  });

  it('forgets a connector on every instance when it is PATCHed or DELETEd through another instance', async () => {
    const id = await insert();
    expect((await searchOnSecond(id)).status).toBe(200);
    expect(second.deps.connectorCache.has(id)).toBe(true);

    const patched = await platform.call('PATCH', `/api/v1/integrations/connectors/${id}`, { name: 'renamed' });
    expect(patched.status).toBe(200);
    await eventually(async () => (second.deps.connectorCache.has(id) ? undefined : true), 2000, 10);
    expect((await searchOnSecond(id)).status).toBe(200);
    expect(second.deps.connectorCache.has(id)).toBe(true);

    const deleted = await platform.call('DELETE', `/api/v1/integrations/connectors/${id}`);
    expect(deleted.status).toBe(204);
    await eventually(async () => ((await searchOnSecond(id)).status === 404 ? true : undefined), 2000, 10);
    expect(second.deps.connectorCache.has(id)).toBe(false);
  });

  it('remembers meta.synced_at beside the row and takes a pass the worker announces on every instance', async () => {
    const id = await insert();
    const syncedAt = async () =>
      ((await (await searchOnSecond(id)).json()) as { meta: { synced_at: string | null } }).meta.synced_at;
    expect(await syncedAt()).toBeNull();
    // A pass recorded behind the API's back (no announcement): searches keep the remembered value.
    const { syncStates } = platform.api.deps;
    const run = { connectorId: id, entity: 'customers', owner: 'hot-path-test' };
    await syncStates.ensure(id, ['customers']);
    await syncStates.startRun(run, crypto.randomUUID());
    expect(await syncStates.finishRun(run, { cursor: null, recordCount: 0 })).toBe('ok');
    const finished = (await syncStates.get(id, 'customers'))?.last_success_at?.toISOString();
    expect(finished).toBeDefined();
    expect(await syncedAt()).toBeNull();
    // The worker announces every recorded run on the connector channel, as sync-run.ts does.
    await platform.api.deps.redis.publish(connectorChangesChannel(platform.api.deps.env.NAMESPACE), id);
    await eventually(async () => ((await syncedAt()) === finished ? true : undefined), 2000, 10);
  });

  it('routes with TrieRouter from the first request: RegExpRouter refuses these routes (see buildApp)', async () => {
    expect(secondApp.router.name).toBe('TrieRouter');
    const regExp = new RegExpRouter();
    expect(() => {
      for (const route of secondApp.routes) regExp.add(route.method, route.path, route.handler);
      regExp.match('GET', '/healthz');
    }).toThrow(UnsupportedPathError);
  });

  it('answers 404 to another organization even while the connector is cached', async () => {
    const id = await insert();
    expect((await searchOnSecond(id)).status).toBe(200);
    expect(second.deps.connectorCache.has(id)).toBe(true);
    const { clients } = platform.api.deps;
    const suffix = randomBytes(3).toString('hex');
    await clients.upsertOrganization(`other-${suffix}`, 'other');
    await clients.upsertClient({
      client_id: `other-${suffix}`,
      secret_hash: await hashClientSecret('other-secret-1'),
      name: 'o',
      allowed_redirect_urls: [],
    });
    await clients.grant(`other-${suffix}`, `other-${suffix}`);
    const issued = await secondApp.request('/api/v1/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: `other-${suffix}`,
        client_secret: 'other-secret-1',
      }),
    });
    const otherToken = ((await issued.json()) as { access_token: string }).access_token;
    const response = await searchOnSecond(id, otherToken);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe('connector_not_found');
  });
});

describe('rate limit', () => {
  const connections: Redis[] = [];
  let redisUrl: string;
  beforeAll(async () => {
    redisUrl = (await testServices()).redisUrl;
  });
  afterAll(() => {
    for (const redis of connections) redis.disconnect();
  });

  /** One API instance: its own Redis connection, the same prefix as the others. */
  const instance = (prefix: string, limit: number, windowSeconds: number) => {
    const redis = new Redis(redisUrl);
    connections.push(redis);
    const app = new Hono<{ Variables: { auth: { clientId: string; organizationId: string } } }>();
    app.use('*', async (c, next) => {
      c.set('auth', { clientId: c.req.header('x-client') ?? 'c', organizationId: 'o' });
      await next();
    });
    app.use('*', rateLimit({ redis, prefix, limit, windowSeconds }) as never);
    app.get('/', (c) => c.text('ok'));
    app.onError((error, c) => {
      const status = (error as { status?: number }).status ?? 500;
      const retryAfter = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
      return c.text(String(retryAfter ?? ''), status as 429);
    });
    return (client = 'c') => app.request('/', { headers: { 'x-client': client } });
  };

  it('shares the limit between instances, per client, with 429 and Retry-After', async () => {
    const prefix = `t_rl_${randomBytes(4).toString('hex')}`;
    const a = instance(prefix, 4, 60);
    const b = instance(prefix, 4, 60);
    const statuses = [];
    for (const call of [a, b, a, b, a, b]) statuses.push((await call()).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const refused = await a();
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(await refused.text())).toBeGreaterThanOrEqual(1);
    expect((await b('another-client')).status).toBe(200);
  });

  it('lets no burst of twice the limit through across a window edge (a fixed window would)', async () => {
    const prefix = `t_rl_${randomBytes(4).toString('hex')}`;
    const windowSeconds = 4;
    const call = instance(prefix, 5, windowSeconds);
    // Wait until 300 ms before a window edge by Redis's clock (the limiter's only clock).
    const probe = connections.at(-1)!;
    const [seconds, micros] = (await probe.time()) as [number | string, number | string];
    const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const toEdge = windowSeconds * 1000 - (nowMs % (windowSeconds * 1000));
    await new Promise((r) => setTimeout(r, toEdge > 300 ? toEdge - 300 : toEdge + windowSeconds * 1000 - 300));
    const before = [];
    for (let i = 0; i < 5; i++) before.push((await call()).status);
    expect(before).toEqual([200, 200, 200, 200, 200]);
    await new Promise((r) => setTimeout(r, 400)); // now just past the edge
    const after = [];
    for (let i = 0; i < 5; i++) after.push((await call()).status);
    expect(after).toEqual([429, 429, 429, 429, 429]);
  });

  it('says how long to wait, and lets the next request through after that', async () => {
    const prefix = `t_rl_${randomBytes(4).toString('hex')}`;
    const call = instance(prefix, 2, 1);
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(200);
    const refused = await call();
    expect(refused.status).toBe(429);
    const wait = Number(await refused.text());
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(2);
    await new Promise((r) => setTimeout(r, wait * 1000));
    expect((await call()).status).toBe(200);
  });
});
