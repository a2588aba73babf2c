import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { ApiEnv } from '../deps.ts';
import { problemResponse } from '../problem.ts';
import { auditAs } from './audit-trail.ts';
import { meterUsage } from './meter-usage.ts';

const BASE = '/api/v1/integrations/connectors';

/** The middleware over a few routes of the connectors group, its counts kept in `counted`. */
function app(options: { requestsPerDay?: number; usedToday?: number } = {}) {
  const counted: [string, string | undefined, string][] = [];
  const usage = {
    add: (organizationId: string, connectorId: string | undefined, metric: string) => {
      counted.push([organizationId, connectorId, metric]);
    },
    requestsToday: () => options.usedToday ?? 0,
  };
  const quotas = {
    knownLimitsOf: () => (options.requestsPerDay === undefined ? {} : { requests_per_day: options.requestsPerDay }),
  };
  const hono = new Hono<ApiEnv>()
    .use('*', async (c, next) => {
      c.set('auth', { clientId: 'client', organizationId: 'org-a' });
      await next();
    })
    .use('*', meterUsage({ usage, quotas }))
    .post(`${BASE}/:id/execute`, async (c) => {
      const body = (await c.req.json()) as { action: string };
      auditAs(c, { action: `execute.${body.action}` });
      return c.json({ data: [] });
    })
    .post(`${BASE}/:id/sql`, (c) => c.json({ data: [] }))
    .get(`${BASE}/:id/changes`, (c) => c.json({ data: [] }))
    .get(`${BASE}/:id/changes/stream`, (c) => c.body('', 200, { 'content-type': 'text/event-stream' }))
    .get(`${BASE}/:id`, (c) => (c.req.param('id') === 'foreign' ? c.json({}, 404) : c.json({})));
  hono.onError((error, c) => problemResponse(c, error));
  return { hono, counted };
}

const execute = (action: string) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ entity: 'customers', action }),
});

describe('meterUsage', () => {
  it('counts each call by route class, a search apart from live actions, to its connector', async () => {
    const { hono, counted } = app();
    await hono.request(`${BASE}/c1/execute`, execute('search'));
    await hono.request(`${BASE}/c1/execute`, execute('list'));
    await hono.request(`${BASE}/c1/sql`, { method: 'POST' });
    await hono.request(`${BASE}/c1/changes`);
    await hono.request(`${BASE}/c1/changes/stream`);
    await hono.request(`${BASE}/c1`);
    expect(counted).toEqual([
      ['org-a', 'c1', 'api_search'],
      ['org-a', 'c1', 'api_execute'],
      ['org-a', 'c1', 'api_sql'],
      ['org-a', 'c1', 'api_changes'],
      ['org-a', 'c1', 'api_changes'],
      ['org-a', 'c1', 'api_other'],
    ]);
  });

  it('counts a call to a connector it cannot see (404) to the organization, not to that id', async () => {
    const { hono, counted } = app();
    expect((await hono.request(`${BASE}/foreign`)).status).toBe(404);
    expect(counted).toEqual([['org-a', undefined, 'api_other']]);
  });

  it('refuses a call past the requests of the day with 429 quota_exceeded and Retry-After, and counts nothing', async () => {
    const { hono, counted } = app({ requestsPerDay: 10, usedToday: 10 });
    const response = await hono.request(`${BASE}/c1/execute`, execute('search'));
    expect(response.status).toBe(429);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(await response.json()).toMatchObject({
      status: 429,
      code: 'quota_exceeded',
      quota: { name: 'requests_per_day', limit: 10, used: 10 },
    });
    expect(counted).toEqual([]);
  });

  it('lets calls through below the limit', async () => {
    const { hono } = app({ requestsPerDay: 10, usedToday: 9 });
    expect((await hono.request(`${BASE}/c1/sql`, { method: 'POST' })).status).toBe(200);
  });
});
