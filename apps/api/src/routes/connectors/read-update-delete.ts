import { publicBaseUrl } from '@conduit/config';
import { indexKindOf } from '@conduit/hosted-connectors';
import { redactForAudit } from '@conduit/trusted-calls';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ApiDeps, ApiEnv } from '../../deps.ts';
import { auditAs } from '../../middleware/audit-trail.ts';
import {
  authenticatedRoute,
  bodySchema,
  jsonBody,
  jsonResponse,
  mountRoute,
  resourceRoutes,
} from '../../openapi/route-kit.ts';
import { ConnectorSchema, SyncAcceptedSchema } from '../../openapi/schemas.ts';
import { ApiError } from '../../problem.ts';
import { readJson } from '../../request-body.ts';
import { connectorView, searchableEntities } from '../../services/connector-view.ts';
import { checkCredentials } from '../../services/credential-check.ts';
import { loadConnector } from './load.ts';
import { ConnectorIdParams, SyncBody, UpdateConnectorBody } from './schemas.ts';

const connector = resourceRoutes({ tags: ['Connectors'], idPath: '/{connector_id}', params: ConnectorIdParams });

export const listConnectorsRoute = connector.list(
  'The caller’s connectors (oldest first), each with its per-entity sync status',
  ConnectorSchema,
  'the connectors',
);

export const getConnectorRoute = connector.get(
  'A connector with its per-entity sync status (never its credentials)',
  jsonResponse(ConnectorSchema, 'the connector'),
);

export const updateConnectorRoute = connector.update(
  'Replace the name or the credentials (credentials are re-checked), or set the webhook secret (null removes it; never shown again)',
  { schema: UpdateConnectorBody, example: { summary: 'rename', value: { name: 'renamed' } } },
  jsonResponse(ConnectorSchema, 'the updated connector'),
  [400, 404, 502],
);

export const deleteConnectorRoute = connector.delete('Delete a connector, its indexed documents and its schedules');

export const syncConnectorRoute = authenticatedRoute({
  tags: ['Connectors'],
  method: 'post',
  path: '/{connector_id}/sync',
  summary: 'Trigger a sync now (all replicated entities, or one)',
  request: { params: ConnectorIdParams, body: jsonBody(SyncBody, [{ summary: 'all entities', value: {} }]) },
  responses: { 202: jsonResponse(SyncAcceptedSchema, 'queued') },
});

/** GET /api/v1/integrations/connectors, GET, PATCH, DELETE .../{id} and POST .../{id}/sync */
export function registerReadUpdateDelete(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const view = { publicBaseUrl: publicBaseUrl(deps.env) };
  // The caller's connectors (the MCP server's list tool, the console): oldest first.
  mountRoute(app, listConnectorsRoute, async (c) => {
    const rows = await deps.connectors.listByOrganization(c.get('auth').organizationId);
    const data = [];
    for (const row of rows) {
      const kind = await deps.hosted.kinds.forRow(row);
      if (kind) data.push(connectorView(row, kind.definition.catalog, await deps.syncStates.list(row.id), view));
    }
    return c.json({ data });
  });

  mountRoute(app, getConnectorRoute, async (c) => {
    const { row, catalog, kind } = await loadConnector(c, deps);
    const [states, budget] = await Promise.all([
      deps.syncStates.list(row.id),
      deps.budgets.view(deps.hosted.budgetSubject(row, kind)),
    ]);
    return c.json({ ...connectorView(row, catalog, states, view), rate_budget: budget });
  });

  mountRoute(app, updateConnectorRoute, async (c) => {
    const { row, catalog, kind } = await loadConnector(c, deps);
    const body = await readJson(c, bodySchema(updateConnectorRoute));
    // A change of the webhook secret is its own action in the trail (the secret itself is never recorded).
    const secretAction = body.webhook_secret === null ? 'remove' : 'set';
    auditAs(c, {
      ...(body.webhook_secret === undefined ? {} : { action: `connector.webhook_secret.${secretAction}` }),
      params: redactForAudit(body),
    });
    const changes: { name?: string; credentials_ciphertext?: string } = {};
    if (body.name !== undefined) changes.name = body.name;
    if (body.credentials !== undefined) {
      const connector = deps.hosted.forCredentials(kind, body.credentials, row.config);
      await checkCredentials(connector, catalog);
      changes.credentials_ciphertext = deps.cipher.encrypt(body.credentials);
    }
    if (body.webhook_secret !== undefined) {
      const scheme = catalog.webhooks;
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
    // New credentials after the upstream rejected the old ones: sync again now rather than at the next schedule.
    if (changes.credentials_ciphertext !== undefined && row.credentials_rejected_at)
      await deps.scheduler.syncConnector(row.id);
    return c.json(connectorView(updated, catalog, await deps.syncStates.list(row.id), view));
  });

  mountRoute(app, deleteConnectorRoute, async (c) => {
    const { row, catalog } = await loadConnector(c, deps);
    await deps.scheduler.unschedule(row.id);
    const entities = searchableEntities(catalog);
    // Documents first, so a failure leaves the connector there to delete again; then the row. A run writing a
    // batch meanwhile finds the row gone at its next checkpoint or at its end and removes its writes; the second
    // pass removes a batch that landed in between, before that run's checkpoint (which the row still let pass).
    await deps.indexStore.deleteConnector(indexKindOf(row), entities, row.id);
    await deps.connectors.delete(row.organization_id, row.id);
    await deps.indexStore.deleteConnector(indexKindOf(row), entities, row.id);
    await deps.connectorCache.invalidate(row.id);
    c.get('logger').info('connector deleted', { connector_id: row.id });
    return c.body(null, 204);
  });

  mountRoute(app, syncConnectorRoute, async (c) => {
    const { row, catalog } = await loadConnector(c, deps);
    const body = await readJson(c, bodySchema(syncConnectorRoute));
    const searchable = searchableEntities(catalog);
    if (body.entity !== undefined && !searchable.includes(body.entity)) {
      throw new ApiError(400, 'invalid_request', `'${body.entity}' is not replicated`, [
        { path: '/entity', message: `replicated entities: ${searchable.join(', ')}` },
      ]);
    }
    const entities = body.entity ? [body.entity] : searchable;
    // A full pass is recorded in Postgres (it survives the deduplication of an entity job already queued).
    if (body.mode === 'full') await deps.syncStates.requestFullPass(row.id, entities);
    for (const entity of entities) {
      await deps.scheduler.syncEntity(row.id, entity, body.mode === 'incremental' ? { mode: 'incremental' } : {});
    }
    return c.json({ connector_id: row.id, entities }, 202);
  });
}
