import type { z } from 'zod';
import type { FieldMap } from './field-spec.ts';

export const ACTIONS = ['list', 'get', 'search', 'create', 'update', 'delete', 'download'] as const;
export type ActionName = (typeof ACTIONS)[number];
export type LiveActionName = Exclude<ActionName, 'search'>;

/** Parameters of one live action: a strict zod object, so unknown params are reported, not ignored. */
export type ParamsSchema = z.ZodObject<z.ZodRawShape>;

/**
 * How replication reads an entity.
 * - `incremental`: the upstream can filter or order by `cursorField`; runs resume from the highest value seen.
 * - `full_refresh`: every run reads everything and removes what disappeared upstream.
 * `parent`: the entity is read once per record of another entity (responses per form, issues per project):
 * `params[param] = parentRecord[from]`.
 */
export interface SyncSpec {
  readonly mode: 'incremental' | 'full_refresh';
  readonly cursorField?: string;
  readonly parent?: { readonly entity: string; readonly param: string; readonly from: string };
}

/** One entity of a connector kind, as document 2 describes it. Pure data: no HTTP here. */
export interface EntityCatalog {
  readonly name: string;
  /** Dotted path to the field that identifies a record (document ids derive from it). */
  readonly recordKey: string;
  /** Record fields with their types and nullability. */
  readonly record: FieldMap;
  /** Pagination values a list returns (document 2 "Meta"). */
  readonly meta?: FieldMap;
  /** Searchable fields (dotted where listed). Present exactly when the entity supports `search`. */
  readonly searchable?: FieldMap;
  /** Live actions and their parameter schemas. */
  readonly actions: { readonly [A in LiveActionName]?: ParamsSchema };
  /** Present exactly when the entity is searchable: how the worker replicates it. */
  readonly sync?: SyncSpec;
}

export interface KindCatalog {
  /** Canonical connector_type (DESIGN §1), e.g. `Zendesk-Talk`. */
  readonly connectorType: string;
  /** The purpose name document 1 uses, e.g. `telephony`. */
  readonly purpose: string;
  /** Credentials: a union over the credential methods the kind accepts. */
  readonly credentials: z.ZodType;
  readonly replicationConfig: z.ZodType;
  /** Connector configuration variables (telephony: subdomain); an empty strict object when there are none. */
  readonly config: z.ZodType;
  readonly entities: Readonly<Record<string, EntityCatalog>>;
}

export function entityActions(entity: EntityCatalog): ActionName[] {
  const live = Object.keys(entity.actions) as LiveActionName[];
  return entity.searchable ? [...live, 'search'] : live;
}

/**
 * The entity named `name`, looked up as data: names like `toString` or `__proto__` are not entities
 * (a plain `entities[name]` would return Object.prototype members).
 */
export function entityOf(catalog: KindCatalog, name: string): EntityCatalog | undefined {
  return Object.hasOwn(catalog.entities, name) ? catalog.entities[name] : undefined;
}
