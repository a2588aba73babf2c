import { CONNECTOR_DEFINITIONS, findConnectorDefinition, type KindCatalog } from '@conduit/connectors';

export type { EntityCatalog, FieldSpec, KindCatalog } from '@conduit/connectors';

/** Every kind's catalog (the same data the API validates with). */
export function kindCatalogs(): KindCatalog[] {
  return CONNECTOR_DEFINITIONS.map((d) => d.catalog as KindCatalog);
}

export function kindCatalog(connectorType: string): KindCatalog | undefined {
  return findConnectorDefinition(connectorType)?.catalog as KindCatalog | undefined;
}

/** `Zendesk-Talk` → `zendesk_talk`: tool names allow [a-zA-Z0-9_-] only. */
export function toolSlug(connectorType: string): string {
  return connectorType.toLowerCase().replace(/[^a-z0-9]+/g, '_');
}
