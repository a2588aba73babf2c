import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { defineRoutes, jsonResponse } from '../openapi/route-kit.ts';

const Readiness = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(z.string(), z.string()).describe('per dependency: "ok" or what failed'),
});

export const healthzRoute = createRoute({
  tags: ['Operations'],
  method: 'get',
  path: '/healthz',
  summary: 'Liveness',
  security: [],
  responses: { 200: jsonResponse(z.object({ status: z.literal('ok') }), 'alive') },
});

export const readyzRoute = createRoute({
  tags: ['Operations'],
  method: 'get',
  path: '/readyz',
  summary: 'Readiness: Postgres, Redis and OpenSearch answer',
  security: [],
  responses: { 200: jsonResponse(Readiness, 'ready'), 503: jsonResponse(Readiness, 'a dependency is down') },
});

/** GET /healthz and GET /readyz. */
export const healthRoutes = defineRoutes(
  { healthz: healthzRoute, readyz: readyzRoute },
  (deps: Pick<ApiDeps, 'probes'>) => ({
    healthz: (c) => c.json({ status: 'ok' }),
    readyz: async (c) => {
      const checks: Record<string, string> = {};
      await Promise.all(
        Object.entries(deps.probes).map(async ([name, probe]) => {
          try {
            await probe();
            checks[name] = 'ok';
          } catch (error) {
            checks[name] = error instanceof Error ? error.message : 'failed';
          }
        }),
      );
      const ready = Object.values(checks).every((v) => v === 'ok');
      return c.json({ status: ready ? 'ready' : 'not_ready', checks }, ready ? 200 : 503);
    },
  }),
);
