import { CONNECTOR_DEFINITIONS, type EntityCatalog, entityActions, type KindCatalog } from '@conduit/connectors';
import { SearchParamsSchema } from '@conduit/search-dsl';
import { z } from 'zod';
import { ConnectorName, CustomerName } from './connector-bodies.ts';

/** `Zendesk-Talk` → `ZendeskTalk`: component names. */
const pascal = (connectorType: string) => connectorType.replaceAll(/[^A-Za-z0-9]/g, '');

const SearchParams = SearchParamsSchema.meta({
  id: 'SearchParams',
  description:
    'Search over the synchronized copy (docs/search.md): query.filter, query.sort, limit (0 = totals and aggregations only), cursor, fields, aggregate',
});

/** Kinds with required configuration variables (telephony: subdomain) require `config`; for the others it is optional. */
function requiresConfig(catalog: KindCatalog): boolean {
  return !catalog.config.safeParse({}).success;
}

/** The create body of one kind: its own credentials (a union over its methods), config and replication_config. */
function createBodyOf(catalog: KindCatalog) {
  return z
    .strictObject({
      customer_name: CustomerName,
      connector_type: z.literal(catalog.connectorType).describe('matched case-insensitively'),
      name: ConnectorName,
      credentials: catalog.credentials,
      replication_config: catalog.replicationConfig,
      config: requiresConfig(catalog) ? catalog.config : catalog.config.optional(),
    })
    .meta({
      id: `Create${pascal(catalog.connectorType)}Connector`,
      title: `${catalog.connectorType} (${catalog.purpose})`,
    });
}

/** Every `{entity, action, params}` a kind accepts, params as the catalog declares them per entity and action. */
function executeBodyOf(catalog: KindCatalog) {
  const branches = Object.values(catalog.entities).flatMap((entity: EntityCatalog) =>
    entityActions(entity).map((action) => {
      const params = action === 'search' ? SearchParams : entity.actions[action];
      return z
        .strictObject({
          entity: z.literal(entity.name),
          action: z.literal(action),
          params: action === 'search' || !params?.safeParse({}).success ? (params ?? z.object({})) : params.optional(),
        })
        .meta({ description: `${catalog.connectorType}: ${entity.name}.${action}` });
    }),
  );
  return branches;
}

/** POST /connectors: one branch per connector_type (built once: component ids are registered globally). */
export const CreateConnectorRequest = z
  .union(CONNECTOR_DEFINITIONS.map((d) => createBodyOf(d.catalog)) as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]])
  .meta({ id: 'CreateConnectorRequest', description: 'One shape per connector_type' });

/**
 * POST /connectors/{id}/execute: every kind's branches, each described `<connector_type>: <entity>.<action>`
 * (the generator flattens nested unions, so kinds are told apart by that description); the connector's kind applies.
 */
export const ExecuteRequest = z
  .union(
    CONNECTOR_DEFINITIONS.flatMap((d) => executeBodyOf(d.catalog)) as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]],
  )
  .meta({
    id: 'ExecuteRequest',
    description: 'One union per connector kind of every entity × action with its params; the connector’s kind applies',
  });
