import { z } from 'zod';
import type { EntityCatalog, Paging, ParamsSchema } from '../core/catalog.ts';
import type { ConnectorDefinition } from '../core/define-connector.ts';
import type { FieldSpec } from '../core/field-spec.ts';
import type { ConnectorDefinitionDocument, DefinedEntity, DefinedField, DefinedParam } from './definition-format.ts';
import { formatPaging } from './paging-names.ts';

/** A built-in kind in the definition format, and what of it the format cannot say (the kind's code hooks). */
export interface ExportedDefinition {
  readonly definition: ConnectorDefinitionDocument;
  /** JSON pointers of what was left out, each with the reason (`/entities/calls: read is code`). */
  readonly unexpressed: readonly { readonly path: string; readonly reason: string }[];
}

/**
 * Writes a built-in kind as a definition (GET /api/v1/catalog/{kind}/definition), as far as the format can say it:
 * entities whose list or replication is code, code hooks that reshape records, and coded writes are left out and
 * listed in `unexpressed`. What is exported runs the same as the built-in (docs/definitions.md).
 */
export function exportDefinition(kind: ConnectorDefinition): ExportedDefinition {
  const { catalog, authAsData: auth } = kind;
  const unexpressed: { path: string; reason: string }[] = [];
  const entities: Record<string, DefinedEntity> = {};
  for (const entity of Object.values(catalog.entities)) {
    const at = `/entities/${entity.name}`;
    const own = Object.hasOwn(kind.entities, entity.name) ? kind.entities[entity.name] : undefined;
    const coded = (['list', 'get', 'read'] as const).filter((op) => own?.[op]);
    const hooks = Object.keys(own?.hooks ?? {});
    if (!entity.upstream || coded.length > 0 || hooks.length > 0) {
      const why = !entity.upstream
        ? 'its list is code'
        : coded.length > 0
          ? `${coded.join(', ')} ${coded.length > 1 ? 'are' : 'is'} code`
          : `code hooks reshape it (${hooks.join(', ')})`;
      unexpressed.push({ path: at, reason: why });
      continue;
    }
    for (const action of ['create', 'update', 'delete', 'download'] as const) {
      if (entity.actions[action]) unexpressed.push({ path: `${at}/${action}`, reason: `${action} is code` });
    }
    entities[entity.name] = exportEntity(entity);
  }
  if (catalog.webhooks)
    unexpressed.push({ path: '/webhooks', reason: 'the scheme is code (docs/definitions.md shows it as data)' });
  if (!auth) unexpressed.push({ path: '/auth', reason: 'the kind declares no auth as data' });
  if (kind.classify) unexpressed.push({ path: '/errors', reason: 'error answers are read by code' });
  const config = Object.keys((catalog.config as unknown as z.ZodObject).shape ?? {});
  const definition: ConnectorDefinitionDocument = {
    name: catalog.connectorType,
    description: catalog.purpose,
    base_url: kind.defaultBaseUrl,
    ...(config.length > 0
      ? { config: Object.fromEntries(config.map((name) => [name, { pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }])) }
      : {}),
    auth: (auth ?? { type: 'bearer' }) as ConnectorDefinitionDocument['auth'],
    ...(catalog.rateLimit.perSecond !== null
      ? { rate_limit: { per_second: catalog.rateLimit.perSecond, scope: catalog.rateLimit.scope.slice(0, 256) } }
      : {}),
    entities,
  };
  return { definition, unexpressed };
}

function exportEntity(entity: EntityCatalog): DefinedEntity {
  const upstream = entity.upstream!;
  const searchable = entity.searchable ? Object.keys(entity.searchable) : undefined;
  const allSearchable =
    searchable &&
    Object.keys(entity.record).every((name) => searchable.includes(name)) &&
    searchable.length === Object.keys(entity.record).length;
  const renames = upstream.query ?? {};
  const list = entity.actions.list;
  const listParams = list ? paramsOf(list, renames, pagingParams(upstream.paging)) : {};
  const sync = entity.sync;
  const capture = entity.changeCapture;
  return {
    key: entity.recordKey,
    fields: Object.fromEntries(Object.entries(entity.record).map(([name, spec]) => [name, fieldOf(spec)])),
    ...(searchable ? { searchable: allSearchable ? ('all' as const) : searchable } : {}),
    ...(entity.embed?.length ? { embed: [...entity.embed] } : {}),
    ...(upstream.aliases ? { aliases: { ...upstream.aliases } } : {}),
    list: {
      path: `/${upstream.path.replace(/^\//, '')}`,
      records: upstream.records,
      ...(Object.keys(listParams).length > 0 ? { params: listParams } : {}),
      paging: formatPaging(upstream.paging),
      ...(upstream.meta ? { meta: { ...upstream.meta } } : {}),
      ...(upstream.constantQuery ? { constant_query: { ...upstream.constantQuery } } : {}),
    },
    ...(upstream.get
      ? {
          get: {
            path: `/${upstream.get.path.replace(/^\//, '')}`,
            ...(upstream.get.record ? { record: upstream.get.record } : {}),
            ...(entity.actions.get ? { params: paramsOf(entity.actions.get, renames) } : {}),
            ...(upstream.get.defaults ? { constant_query: { ...upstream.get.defaults } } : {}),
          },
        }
      : {}),
    ...(sync
      ? {
          replication: {
            mode: sync.mode,
            ...(sync.cursorField ? { cursor_field: sync.cursorField } : {}),
            ...(upstream.read?.since
              ? {
                  since: {
                    ...upstream.read.since,
                    ...(renames[upstream.read.since.param]
                      ? { upstream_name: renames[upstream.read.since.param] }
                      : {}),
                  },
                }
              : {}),
            ...(capture && sync.mode === 'incremental'
              ? { sees_edits: capture.seesEdits, sees_deletions: capture.seesDeletions }
              : {}),
            ...(capture?.lookbackMs ? { lookback_s: Math.round(capture.lookbackMs / 1000) } : {}),
            ...(upstream.read?.params
              ? { page_params: upstream.read.params as Record<string, string | number | boolean> }
              : {}),
            ...(sync.parent
              ? { parent: { entity: sync.parent.entity, param: sync.parent.param, from: sync.parent.from } }
              : {}),
          },
        }
      : {}),
  };
}

export function fieldOf(spec: FieldSpec): DefinedField {
  const simple = spec.type !== 'object' && spec.type !== 'array' && !('enum' in spec && spec.enum);
  if (simple || (spec.type === 'object' && !spec.fields) || (spec.type === 'array' && !spec.items)) {
    return `${spec.type}${spec.nullable ? '' : '!'}`;
  }
  return {
    type: spec.type,
    ...(spec.nullable ? {} : { nullable: false }),
    ...('enum' in spec && spec.enum ? { enum: [...spec.enum] } : {}),
    ...(spec.type === 'object' && spec.fields
      ? { fields: Object.fromEntries(Object.entries(spec.fields).map(([n, s]) => [n, fieldOf(s)])) }
      : {}),
    ...(spec.type === 'array' && spec.items ? { items: fieldOf(spec.items) } : {}),
  };
}

/** The params the paging adds by itself (the compiler declares them again). */
function pagingParams(paging: Paging): string[] {
  if (paging.type === 'none') return [];
  return paging.type === 'offset' ? [paging.param, paging.limitParam] : [paging.param];
}

interface JsonSchemaProperty {
  type?: string;
  enum?: (string | number)[];
  minimum?: number;
  maximum?: number;
  format?: string;
  pattern?: string;
  maxLength?: number;
  items?: { type?: string };
  anyOf?: JsonSchemaProperty[];
}

/** A zod params object as the format's params (through its JSON Schema: the zod schema stays the source). */
function paramsOf(
  schema: ParamsSchema,
  renames: Readonly<Record<string, string>>,
  skip: readonly string[] = [],
): Record<string, DefinedParam> {
  const json = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as {
    properties?: Record<string, JsonSchemaProperty>;
    required?: string[];
  };
  const out: Record<string, DefinedParam> = {};
  for (const [name, property] of Object.entries(json.properties ?? {})) {
    if (skip.includes(name)) continue;
    const p = property.anyOf?.find((option) => option.type === 'string') ?? property.anyOf?.[0] ?? property;
    const type =
      p.format === 'date-time'
        ? 'datetime'
        : p.type === 'integer' || p.type === 'number' || p.type === 'boolean' || p.type === 'array'
          ? p.type
          : 'string';
    out[name] = {
      type,
      ...(json.required?.includes(name) ? { required: true } : {}),
      ...(p.enum ? { enum: p.enum } : {}),
      ...(p.minimum !== undefined && Math.abs(p.minimum) < Number.MAX_SAFE_INTEGER ? { minimum: p.minimum } : {}),
      ...(p.maximum !== undefined && Math.abs(p.maximum) < Number.MAX_SAFE_INTEGER ? { maximum: p.maximum } : {}),
      ...(p.pattern && type === 'string' ? { pattern: p.pattern } : {}),
      ...(p.maxLength && type === 'string' ? { max_length: p.maxLength } : {}),
      ...(type === 'array' && (p.items?.type === 'integer' || p.items?.type === 'number' || p.items?.type === 'string')
        ? { items: { type: p.items.type } }
        : {}),
      ...(renames[name] ? { upstream_name: renames[name] } : {}),
    };
  }
  return out;
}
