import { Hono } from 'hono';
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { ApiEnv } from '../deps.ts';
import { ApiError, problemResponse } from '../problem.ts';
import { observeRequests } from './observe-requests.ts';

function app() {
  const registry = new Registry();
  const httpDuration = new Histogram({
    name: 'http_duration_seconds',
    help: 'test',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const routes = new Hono<ApiEnv>()
    .onError((error, c) => problemResponse(c, error))
    .use('*', observeRequests({ httpDuration }))
    .get('/connectors/:connector_id', (c) => c.json({ id: c.req.param('connector_id') }))
    .get('/missing/:id', () => {
      throw new ApiError(404, 'not_found', 'no such thing');
    });
  /** The observations so far, by label set, once the answers' deferred records ran. */
  const counts = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    const metric = await registry.getSingleMetric('http_duration_seconds')?.get();
    return (metric?.values ?? [])
      .filter((v) => (v as { metricName?: string }).metricName === 'http_duration_seconds_count')
      .map((v) => ({ ...v.labels, count: v.value }));
  };
  return { routes, counts };
}

describe('observeRequests', () => {
  it('observes each answer under its route pattern and status, never the raw path', async () => {
    const { routes, counts } = app();
    await routes.request('/connectors/c-1');
    await routes.request('/connectors/c-2');
    await routes.request('/missing/x');
    await routes.request('/nowhere');
    expect(await counts()).toEqual(
      expect.arrayContaining([
        { method: 'GET', route: '/connectors/:connector_id', status: '200', count: 2 },
        { method: 'GET', route: '/missing/:id', status: '404', count: 1 },
        { method: 'GET', route: 'unmatched', status: '404', count: 1 },
      ]),
    );
    expect(JSON.stringify(await counts())).not.toContain('c-1');
  });
});
