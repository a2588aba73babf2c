import { isProductionProfile } from '@conduit/config';
import { metricsAuthorized } from '@conduit/observability';
import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { defineRoutes, problems } from '../openapi/route-kit.ts';
import { ApiError } from '../problem.ts';

export const metricsRoute = createRoute({
  tags: ['Operations'],
  method: 'get',
  path: '/metrics',
  summary:
    'Prometheus metrics: with METRICS_TOKEN set, that bearer token; without, open in the local profile and 404 outside it',
  security: [],
  responses: {
    200: { description: 'Prometheus text format', content: { 'text/plain': { schema: z.string() } } },
    ...problems(401, 404),
  },
});

/**
 * GET /metrics: Prometheus text (docs/operations.md). The API listens on every interface, so outside the local
 * profile its metrics are served only behind METRICS_TOKEN: without one the route answers 404, as if absent.
 */
export const metricsRoutes = defineRoutes({ metrics: metricsRoute }, (deps: Pick<ApiDeps, 'env' | 'metrics'>) => {
  const off = deps.env.METRICS_TOKEN === undefined && isProductionProfile(deps.env);
  return {
    metrics: async (c) => {
      if (off) {
        throw new ApiError(404, 'not_found', 'GET /metrics is off: outside the local profile it needs METRICS_TOKEN');
      }
      if (!metricsAuthorized(deps.env.METRICS_TOKEN, c.req.header('authorization'))) {
        throw new ApiError(401, 'unauthorized', 'GET /metrics needs the METRICS_TOKEN bearer token');
      }
      const { contentType, body } = await deps.metrics.scrape();
      return c.body(body, 200, { 'content-type': contentType });
    },
  };
});
