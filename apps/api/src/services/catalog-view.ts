import {
  CONNECTOR_DEFINITIONS,
  type EntityCatalog,
  entityActions,
  type FieldMap,
  type FieldSpec,
  type KindCatalog,
} from '@conduit/connectors';
import { z } from 'zod';

/** A searchable field as the console's filter builder needs it: dotted path, type, enum values. */
export interface SearchableFieldView {
  path: string;
  type: string;
  nullable: boolean;
  enum?: readonly string[];
}

export interface EntityView {
  name: string;
  record_key: string;
  actions: string[];
  /** JSON Schema of each live action's params. */
  params: Record<string, unknown>;
  searchable: SearchableFieldView[];
  sync_mode: string | null;
}

export interface KindView {
  connector_type: string;
  purpose: string;
  /** The consent flow is configured for this kind on this deployment. */
  oauth: boolean;
  credentials: unknown;
  config: unknown;
  replication_config: unknown;
  entities: EntityView[];
}

/** JSON Schema (2020-12) of what a caller sends: the input side of the zod schema. */
export function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any', io: 'input' }) as Record<
    string,
    unknown
  >;
}

/** The catalog of every kind as data a client can render: forms, filter builders, action runners. */
export function catalogView(oauthKinds: readonly string[]): { kinds: KindView[] } {
  const oauth = new Set(oauthKinds.map((k) => k.toLowerCase()));
  return {
    kinds: CONNECTOR_DEFINITIONS.map(({ catalog }) =>
      kindView(catalog, oauth.has(catalog.connectorType.toLowerCase())),
    ),
  };
}

/** One kind as the catalog shows it: built in, or one an organization defined (docs/definitions.md). */
export function kindView(catalog: KindCatalog, oauth: boolean): KindView {
  return {
    connector_type: catalog.connectorType,
    purpose: catalog.purpose,
    oauth,
    credentials: inputJsonSchema(catalog.credentials),
    config: inputJsonSchema(catalog.config),
    replication_config: inputJsonSchema(catalog.replicationConfig),
    entities: Object.values(catalog.entities).map(entityView),
  };
}

function entityView(entity: EntityCatalog): EntityView {
  const params: Record<string, unknown> = {};
  for (const [action, schema] of Object.entries(entity.actions)) if (schema) params[action] = inputJsonSchema(schema);
  return {
    name: entity.name,
    record_key: entity.recordKey,
    actions: entityActions(entity),
    params,
    searchable: entity.searchable ? flatten(entity.searchable) : [],
    sync_mode: entity.sync?.mode ?? null,
  };
}

/** Scalar leaves with dotted paths (objects contribute their sub-fields; arrays their item type). */
function flatten(fields: FieldMap, prefix = ''): SearchableFieldView[] {
  return Object.entries(fields).flatMap(([name, spec]) => leaves(`${prefix}${name}`, spec));
}

function leaves(path: string, spec: FieldSpec): SearchableFieldView[] {
  if (spec.type === 'object') return spec.fields ? flatten(spec.fields, `${path}.`) : [];
  if (spec.type === 'array') {
    if (!spec.items) return [{ path, type: 'array', nullable: spec.nullable }];
    return leaves(path, spec.items).map((leaf) => ({ ...leaf, nullable: spec.nullable }));
  }
  return [{ path, type: spec.type, nullable: spec.nullable, ...(spec.enum ? { enum: spec.enum } : {}) }];
}
