import { entityActions } from '@conduit/connectors';
import type { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../../deps.ts';
import { ApiError } from '../../problem.ts';
import { readJson } from '../../request-body.ts';
import { loadConnector } from './load.ts';
import { ExecuteBody } from './schemas.ts';

const PASSED_HEADERS = [
  'content-type',
  'content-length',
  'content-range',
  'content-disposition',
  'accept-ranges',
  'etag',
];

/** POST /api/v1/integrations/connectors/{id}/execute: search answers from the index, the rest goes live. */
export function registerExecute(app: Hono<ApiEnv>, deps: ApiDeps): void {
  app.post('/:id/execute', async (c) => {
    const { row, catalog } = await loadConnector(c, deps);
    const body = await readJson(c, ExecuteBody);
    const entity = catalog.entities[body.entity];
    if (body.action === 'search' && entity && entityActions(entity).includes('search')) {
      return c.json(await deps.search.search(row, entity, body.params ?? {}));
    }
    // Live actions: the same code as direct mode; it also reports unknown entities and actions.
    const connector = deps.hosted.forRow(row);
    const result = await connector.execute({ ...body, signal: c.req.raw.signal });
    if (result.type === 'json') return c.json(result.body);
    const { download } = result;
    const headers = new Headers();
    for (const name of PASSED_HEADERS) {
      const value = download.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    if (!headers.has('content-disposition')) headers.set('content-disposition', 'attachment');
    return new Response(download.body, { status: download.status, headers });
  });

  app.all('/:id/execute', () => {
    throw new ApiError(405, 'method_not_allowed', 'execute takes POST');
  });
}
