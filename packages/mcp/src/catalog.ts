import type { Conduit } from '@conduit/client';
import {
  CONNECTOR_DEFINITIONS,
  checkDefinition,
  compileDefinition,
  connectorTypes,
  findConnectorDefinition,
  type KindCatalog,
} from '@conduit/connectors';

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

/**
 * The catalog of a kind the caller's organization defined (docs/definitions.md), compiled from its active document
 * as the API compiles it; undefined when the caller has no such kind.
 */
export async function definedKindCatalog(conduit: Conduit, connectorType: string): Promise<KindCatalog | undefined> {
  const kind = await conduit.definitions.get(connectorType).catch(() => undefined);
  if (!kind?.definition) return undefined;
  const check = checkDefinition(kind.definition, connectorTypes());
  return check.ok ? compileDefinition(check.definition).catalog : undefined;
}

/** A kind by name for the caller: built in, or one its organization defined. */
export async function callerKindCatalog(conduit: Conduit, connectorType: string): Promise<KindCatalog | undefined> {
  return kindCatalog(connectorType) ?? (await definedKindCatalog(conduit, connectorType));
}
