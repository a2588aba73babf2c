import type { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../../deps.ts';
import { readJson } from '../../request-body.ts';
import { createConnector } from '../../services/create-connector.ts';
import { CreateConnectorBody } from './schemas.ts';

/** POST /api/v1/integrations/connectors */
export function registerCreate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  app.post('/', async (c) => {
    const body = await readJson(c, CreateConnectorBody);
    const view = await createConnector(
      deps,
      { organizationId: c.get('auth').organizationId, ...body },
      c.get('logger'),
    );
    return c.json(view, 201);
  });
}
