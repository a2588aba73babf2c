import { oauthDepsFrom } from '@conduit/oauth-consent';
import { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../deps.ts';
import { catalogView } from '../services/catalog-view.ts';

/**
 * GET /api/v1/catalog: every kind's credential, config and replication schemas (JSON Schema), its entities'
 * actions, params and searchable fields. Public like /openapi.json: it describes the API, never a tenant's data.
 */
export function catalogRoutes(deps: Pick<ApiDeps, 'env' | 'redis' | 'oauth'>): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const body = JSON.stringify(catalogView(oauthDepsFrom(deps).providers.configured()));
  app.get('/', (c) => c.body(body, 200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' }));
  return app;
}
