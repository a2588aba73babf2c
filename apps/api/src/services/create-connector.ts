import { randomUUID } from 'node:crypto';
import { intervalMs, publicBaseUrl } from '@conduit/config';
import { connectorTypes, didYouMean, findConnectorDefinition, parseOrThrow, problemsOf } from '@conduit/connectors';
import type { ConnectorRow } from '@conduit/db';
import type { KindRegistry, ResolvedKind } from '@conduit/hosted-connectors';
import type { ConsentConnector } from '@conduit/oauth-consent';
import type { Logger } from '@conduit/observability';
import type { ApiDeps } from '../deps.ts';
import { ApiError } from '../problem.ts';
import { connectorView, searchableEntities } from './connector-view.ts';
import { checkCredentials } from './credential-check.ts';

/** What creates a connector: the consent flow's connector, whose config POST /connectors may leave out. */
export interface NewConnector extends Omit<ConsentConnector, 'config'> {
  readonly config?: Record<string, unknown> | undefined;
}

export type CreateConnectorDeps = Pick<
  ApiDeps,
  'connectors' | 'syncStates' | 'cipher' | 'hosted' | 'scheduler' | 'env'
>;

/** The kind of a connector_type (matched case-insensitively), or a 400 naming /connector_type. */
export function requireDefinition(connectorType: string): NonNullable<ReturnType<typeof findConnectorDefinition>> {
  const definition = findConnectorDefinition(connectorType);
  if (definition) return definition;
  throw new ApiError(400, 'invalid_request', `unknown connector_type '${connectorType}'`, [
    {
      path: '/connector_type',
      message: `supported: ${connectorTypes().join(', ')}.${didYouMean(connectorType, connectorTypes())}`,
    },
  ]);
}

/** The kind of a connector_type for the organization: built in, or one it defined; a 400 naming /connector_type. */
export async function requireKind(
  kinds: KindRegistry,
  organizationId: string,
  connectorType: string,
): Promise<ResolvedKind> {
  const kind = await kinds.find(organizationId, connectorType);
  if (kind) return kind;
  const names = await kinds.names(organizationId);
  throw new ApiError(400, 'invalid_request', `unknown connector_type '${connectorType}'`, [
    { path: '/connector_type', message: `supported: ${names.join(', ')}.${didYouMean(connectorType, names)}` },
  ]);
}

export function connectorExists(connectorId: string): ApiError {
  return new ApiError(
    409,
    'connector_exists',
    `a connector with this customer_name, connector_type and name exists: ${connectorId}`,
    [{ path: '/name', message: `already used by connector ${connectorId}` }],
  );
}

/**
 * Creates a connector: validates credentials, config and replication_config against the kind's catalog,
 * refuses a duplicate identity (409), proves the credentials upstream, stores them encrypted, and starts the
 * first sync. Shared by POST /connectors and the OAuth consent callback. Returns the public view.
 */
export async function createConnector(deps: CreateConnectorDeps, input: NewConnector, logger: Logger) {
  const kind = await requireKind(deps.hosted.kinds, input.organizationId, input.connector_type);
  const { catalog } = kind.definition;
  const config = input.config ?? {};
  const problems = [
    ...problemsOf(() => parseOrThrow(catalog.credentials, input.credentials, '/credentials', 'invalid_request', '')),
    ...problemsOf(() => parseOrThrow(catalog.config, config, '/config', 'invalid_request', '')),
    ...problemsOf(() =>
      parseOrThrow(catalog.replicationConfig, input.replication_config, '/replication_config', 'invalid_request', ''),
    ),
  ];
  if (problems.length > 0) throw new ApiError(400, 'invalid_request', 'invalid connector', problems);
  const identity = { customer_name: input.customer_name, connector_type: catalog.connectorType, name: input.name };
  const existing = await deps.connectors.findByIdentity(input.organizationId, identity);
  if (existing) throw connectorExists(existing.id);

  const connector = deps.hosted.forCredentials(kind, input.credentials, config);
  await checkCredentials(connector, catalog);

  const replicationConfig = catalog.replicationConfig.parse(input.replication_config) as Record<string, unknown>;
  let row: ConnectorRow;
  try {
    row = await deps.connectors.insert({
      id: randomUUID(),
      organization_id: input.organizationId,
      ...identity,
      credentials_ciphertext: deps.cipher.encrypt(input.credentials),
      config: JSON.stringify(config),
      replication_config: JSON.stringify(replicationConfig),
    });
  } catch (error) {
    // A concurrent create of the same identity won the unique constraint.
    const raced = await deps.connectors.findByIdentity(input.organizationId, identity);
    if (raced) throw connectorExists(raced.id);
    throw error;
  }
  const entities = searchableEntities(catalog);
  await deps.syncStates.ensure(row.id, entities);
  if (entities.length > 0) {
    await deps.scheduler.syncConnector(row.id);
    await deps.scheduler.schedule(row.id, intervalMs(deps.env.SYNC_INTERVAL));
  }
  logger.info('connector created', { connector_id: row.id, connector_type: row.connector_type });
  return connectorView(row, catalog, await deps.syncStates.list(row.id), { publicBaseUrl: publicBaseUrl(deps.env) });
}
