import { findConnectorDefinition } from '@conduit/connectors';
import { publicBaseUrl, webhookSchemeFor } from '@conduit/platform';
import type { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../../deps.ts';
import { ApiError } from '../../problem.ts';
import { readJson } from '../../request-body.ts';
import { connectorView, searchableEntities } from '../../services/connector-view.ts';
import { checkCredentials } from '../../services/credential-check.ts';
import { loadConnector } from './load.ts';
import { SyncBody, UpdateConnectorBody } from './schemas.ts';

/** GET /api/v1/integrations/connectors, GET, PATCH, DELETE .../{id} and POST .../{id}/sync */
export function registerReadUpdateDelete(app: Hono<ApiEnv>, deps: ApiDeps): void {
  const view = { publicBaseUrl: publicBaseUrl(deps.env) };
  // The caller's connectors (the MCP server's list tool, the console): oldest first.
  app.get('/', async (c) => {
    const rows = await deps.connectors.listByOrganization(c.get('auth').organizationId);
    const data = [];
    for (const row of rows) {
      const definition = findConnectorDefinition(row.connector_type);
      if (definition) data.push(connectorView(row, definition.catalog, await deps.syncStates.list(row.id), view));
    }
    return c.json({ data });
  });

  app.get('/:id', async (c) => {
    const { row, catalog } = await loadConnector(c, deps);
    return c.json(connectorView(row, catalog, await deps.syncStates.list(row.id), view));
  });

  app.patch('/:id', async (c) => {
    const { row, catalog } = await loadConnector(c, deps);
    const body = await readJson(c, UpdateConnectorBody);
    const changes: { name?: string; credentials_ciphertext?: string } = {};
    if (body.name !== undefined) changes.name = body.name;
    if (body.credentials !== undefined) {
      const connector = deps.hosted.forCredentials(row.connector_type, body.credentials, row.config);
      await checkCredentials(connector, catalog);
      changes.credentials_ciphertext = deps.cipher.encrypt(body.credentials);
    }
    if (body.webhook_secret !== undefined) {
      const scheme = webhookSchemeFor(row.connector_type);
      const problem = !scheme
        ? `${row.connector_type} sends no webhooks`
        : body.webhook_secret === null
          ? null
          : scheme.checkSecret(body.webhook_secret);
      if (problem)
        throw new ApiError(400, 'invalid_request', 'invalid webhook_secret', [
          { path: '/webhook_secret', message: problem },
        ]);
    }
    let updated = await deps.connectors.update(row.organization_id, row.id, changes);
    if (updated && body.webhook_secret !== undefined) {
      const ciphertext = body.webhook_secret === null ? null : deps.cipher.encrypt({ secret: body.webhook_secret });
      updated = await deps.connectors.setWebhookSecret(row.organization_id, row.id, ciphertext);
    }
    await deps.connectorCache.invalidate(row.id);
    if (!updated) throw new ApiError(404, 'connector_not_found', `no connector ${row.id}`);
    return c.json(connectorView(updated, catalog, await deps.syncStates.list(row.id), view));
  });

  app.delete('/:id', async (c) => {
    const { row, catalog } = await loadConnector(c, deps);
    await deps.scheduler.unschedule(row.id);
    await deps.indexStore.deleteConnector(row.connector_type, searchableEntities(catalog), row.id);
    await deps.connectors.delete(row.organization_id, row.id);
    await deps.connectorCache.invalidate(row.id);
    c.get('logger').info('connector deleted', { connector_id: row.id });
    return c.body(null, 204);
  });

  app.post('/:id/sync', async (c) => {
    const { row, catalog } = await loadConnector(c, deps);
    const body = await readJson(c, SyncBody);
    const searchable = searchableEntities(catalog);
    if (body.entity !== undefined && !searchable.includes(body.entity)) {
      throw new ApiError(400, 'invalid_request', `'${body.entity}' is not replicated`, [
        { path: '/entity', message: `replicated entities: ${searchable.join(', ')}` },
      ]);
    }
    const entities = body.entity ? [body.entity] : searchable;
    for (const entity of entities) await deps.scheduler.syncEntity(row.id, entity);
    return c.json({ connector_id: row.id, entities }, 202);
  });
}
