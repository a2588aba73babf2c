import type { PlatformMetrics } from '@conduit/observability';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { ApiEnv } from '../deps.ts';

/**
 * Request latency by route pattern (`/api/v1/integrations/connectors/:id/execute`, never the raw path, so the
 * label set stays bounded) and status. Cost per request: two clock reads, a scan of the few matched routes and
 * one histogram observation.
 */
export function observeRequests(metrics: Pick<PlatformMetrics, 'httpDuration'>): MiddlewareHandler<ApiEnv> {
  const histogram = metrics.httpDuration;
  return async function observeRequestsMiddleware(c, next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      const seconds = (performance.now() - started) / 1000;
      histogram.observe({ method: c.req.method, route: routePattern(c), status: String(c.res.status) }, seconds);
    }
  };
}

/** The pattern of the handler that answered: the last matched route that is not middleware (`use` = ALL). */
function routePattern(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i];
    if (route && route.method !== 'ALL') return route.path;
  }
  return 'unmatched';
}
