import { entityActions, entityOf } from '@conduit/connectors';
import type { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../../deps.ts';
import { ApiError } from '../../problem.ts';
import { readJson } from '../../request-body.ts';
import { loadConnector } from './load.ts';
import { ExecuteBody } from './schemas.ts';

const ONE_MIB = 1024 * 1024;
const UPLOAD_ENTITY = 'files_upload';
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
    // Cached: searches must not wait on Postgres. Live actions re-read the row below (rotated credentials).
    const { row: cachedRow, catalog } = await loadConnector(c, deps, deps.connectorCache);
    const body = await readJson(c, ExecuteBody);
    // The body limit lets execute through up to the upload size; only files_upload may use it.
    if (body.entity !== UPLOAD_ENTITY && Buffer.byteLength(await c.req.text()) > ONE_MIB) {
      throw new ApiError(413, 'payload_too_large', 'the request body is over 1 MiB (only files_upload may be larger)');
    }
    const entity = entityOf(catalog, body.entity);
    if (body.action === 'search' && entity && entityActions(entity).includes('search')) {
      return c.json(await deps.search.search(cachedRow, entity, body.params ?? {}));
    }
    const { row } = await loadConnector(c, deps);
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
