import { metricsAuthorized } from '@conduit/observability';
import { createRoute, OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../deps.ts';
import { mountRoute, problems } from '../openapi/route-kit.ts';
import { ApiError } from '../problem.ts';

export const metricsRoute = createRoute({
  tags: ['Operations'],
  method: 'get',
  path: '/metrics',
  summary: 'Prometheus metrics (open unless METRICS_TOKEN is set; then that bearer token)',
  security: [],
  responses: {
    200: { description: 'Prometheus text format', content: { 'text/plain': { schema: z.string() } } },
    ...problems(401),
  },
});

/** GET /metrics: Prometheus text; open unless METRICS_TOKEN is set (docs/operations.md). */
export function metricsRoutes(deps: Pick<ApiDeps, 'env' | 'metrics'>): OpenAPIHono<ApiEnv> {
  const app = new OpenAPIHono<ApiEnv>();
  mountRoute(app, metricsRoute, async (c) => {
    if (!metricsAuthorized(deps.env.METRICS_TOKEN, c.req.header('authorization'))) {
      throw new ApiError(401, 'unauthorized', 'GET /metrics needs the METRICS_TOKEN bearer token');
    }
    const { contentType, body } = await deps.metrics.scrape();
    return c.body(body, 200, { 'content-type': contentType });
  });
  return app;
}
