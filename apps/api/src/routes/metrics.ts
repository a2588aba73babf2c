import { metricsAuthorized } from '@conduit/platform';
import { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../deps.ts';
import { ApiError } from '../problem.ts';

/** GET /metrics: Prometheus text; open unless METRICS_TOKEN is set (DESIGN §8). */
export function metricsRoutes(deps: Pick<ApiDeps, 'env' | 'metrics'>): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/metrics', async (c) => {
    if (!metricsAuthorized(deps.env.METRICS_TOKEN, c.req.header('authorization'))) {
      throw new ApiError(401, 'unauthorized', 'GET /metrics needs the METRICS_TOKEN bearer token');
    }
    const { contentType, body } = await deps.metrics.scrape();
    return c.body(body, 200, { 'content-type': contentType });
  });
  return app;
}
