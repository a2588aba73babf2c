import { randomUUID } from 'node:crypto';
import { connectorTypes, didYouMean, findConnectorDefinition, parseOrThrow } from '@conduit/connectors';
import type { ConnectorRow } from '@conduit/db';
import { intervalMs } from '@conduit/platform';
import type { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../../deps.ts';
import { ApiError } from '../../problem.ts';
import { readJson } from '../../request-body.ts';
import { connectorView, searchableEntities } from '../../services/connector-view.ts';
import { checkCredentials } from '../../services/credential-check.ts';
import { CreateConnectorBody } from './schemas.ts';

/** POST /api/v1/integrations/connectors */
export function registerCreate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  app.post('/', async (c) => {
    const body = await readJson(c, CreateConnectorBody);
    const definition = findConnectorDefinition(body.connector_type);
    if (!definition) {
      throw new ApiError(400, 'invalid_request', `unknown connector_type '${body.connector_type}'`, [
        {
          path: '/connector_type',
          message: `supported: ${connectorTypes().join(', ')}.${didYouMean(body.connector_type, connectorTypes())}`,
        },
      ]);
    }
    const { catalog } = definition;
    const problems = [
      ...safeProblems(() => parseOrThrow(catalog.credentials, body.credentials, '/credentials', 'invalid_request', '')),
      ...safeProblems(() => parseOrThrow(catalog.config, body.config ?? {}, '/config', 'invalid_request', '')),
      ...safeProblems(() =>
        parseOrThrow(catalog.replicationConfig, body.replication_config, '/replication_config', 'invalid_request', ''),
      ),
    ];
    if (problems.length > 0) throw new ApiError(400, 'invalid_request', 'invalid connector', problems);
    const organizationId = c.get('auth').organizationId;
    const identity = { customer_name: body.customer_name, connector_type: catalog.connectorType, name: body.name };
    const existing = await deps.connectors.findByIdentity(organizationId, identity);
    if (existing) throw conflict(existing.id);

    const connector = deps.hosted.forCredentials(catalog.connectorType, body.credentials, body.config ?? {});
    await checkCredentials(connector, catalog);

    const replicationConfig = catalog.replicationConfig.parse(body.replication_config) as Record<string, unknown>;
    let row: ConnectorRow;
    try {
      row = await deps.connectors.insert({
        id: randomUUID(),
        organization_id: organizationId,
        ...identity,
        credentials_ciphertext: deps.cipher.encrypt(body.credentials),
        config: JSON.stringify(body.config ?? {}),
        replication_config: JSON.stringify(replicationConfig),
      });
    } catch (error) {
      // A concurrent create of the same identity won the unique constraint.
      const raced = await deps.connectors.findByIdentity(organizationId, identity);
      if (raced) throw conflict(raced.id);
      throw error;
    }
    const entities = searchableEntities(catalog);
    await deps.syncStates.ensure(row.id, entities);
    if (entities.length > 0) {
      await deps.scheduler.syncConnector(row.id);
      await deps.scheduler.schedule(row.id, intervalMs(deps.env.SYNC_INTERVAL));
    }
    c.get('logger').info('connector created', { connector_id: row.id, connector_type: row.connector_type });
    return c.json(connectorView(row, catalog, await deps.syncStates.list(row.id)), 201);
  });
}

function conflict(connectorId: string): ApiError {
  return new ApiError(
    409,
    'connector_exists',
    `a connector with this customer_name, connector_type and name exists: ${connectorId}`,
    [{ path: '/name', message: `already used by connector ${connectorId}` }],
  );
}

function safeProblems(parse: () => unknown) {
  try {
    parse();
    return [];
  } catch (error) {
    return (error as { errors?: { path: string; message: string }[] }).errors ?? [];
  }
}
