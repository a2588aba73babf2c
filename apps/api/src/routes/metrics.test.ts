import { PlatformEnv } from '@conduit/config';
import type { PlatformMetrics } from '@conduit/observability';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { ApiEnv } from '../deps.ts';
import { mountRoutes } from '../openapi/route-kit.ts';
import { problemResponse } from '../problem.ts';
import { metricsRoutes } from './metrics.ts';

const TEXT = '# HELP conduit_up 1\nconduit_up 1\n';
/** The route reads only `scrape` of the process's metrics. */
const metrics = {
  scrape: async () => ({ contentType: 'text/plain; version=0.0.4', body: TEXT }),
} as unknown as PlatformMetrics;

/** The routes with the app's own mapping of errors to problem+json (app.ts). */
function app(env: Record<string, string>) {
  const routes = new Hono<ApiEnv>();
  mountRoutes(routes, metricsRoutes, { env: PlatformEnv.parse(env), metrics });
  routes.onError((error, c) => problemResponse(c, error));
  return routes;
}

describe('GET /metrics on the API', () => {
  it('is open in the local profile without METRICS_TOKEN', async () => {
    const response = await app({}).request('/metrics');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(TEXT);
  });

  it('answers 404 outside the local profile without METRICS_TOKEN, whatever the caller sends', async () => {
    for (const env of [{ PROFILE: 'production' }, { NODE_ENV: 'production' }] as Record<string, string>[]) {
      for (const headers of [{}, { authorization: 'Bearer anything' }]) {
        const response = await app(env).request('/metrics', { headers });
        expect(response.status, JSON.stringify(env)).toBe(404);
        const text = await response.text();
        expect(text).toContain('METRICS_TOKEN');
        expect(text).not.toContain('conduit_up');
      }
    }
  });

  it('needs the bearer token wherever METRICS_TOKEN is set', async () => {
    for (const profile of ['local', 'production']) {
      const routes = app({ PROFILE: profile, METRICS_TOKEN: 'scrape-token' });
      expect((await routes.request('/metrics')).status).toBe(401);
      expect((await routes.request('/metrics', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      const ok = await routes.request('/metrics', { headers: { authorization: 'Bearer scrape-token' } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toBe(TEXT);
    }
  });
});
