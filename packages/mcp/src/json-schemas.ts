import {
  type FieldCapability,
  type LeafOperator,
  type ScopeCapabilities,
  searchCapabilities,
} from '@conduit/search-dsl';
import { z } from 'zod';
import { type EntityCatalog, type FieldSpec, type KindCatalog, toolSlug } from './catalog.ts';

/**
 * Tool input schemas (JSON Schema 2020-12) derived from the catalog: one `oneOf` branch per entity (and action),
 * each with that entity's params schema (from its zod schema) or its search filter, whose properties are the
 * entity's searchable fields with the operators, sorts and aggregations the validator accepts on them
 * (searchCapabilities reads the validator's own tables).
 */
export type JsonSchema = { [key: string]: unknown };

/** Value schemas shared by every field of a type (as `$defs` of the tool's schema, so each appears once). */
export const VALUE_DEFS: Record<string, JsonSchema> = {
  datetime: { type: 'string', description: 'an instant, e.g. 2024-02-10T00:01:56Z, or a date 2024-02-10' },
  integer: { type: ['integer', 'string'], pattern: '^-?\\d+$' },
  decimal: { type: ['string', 'number'], pattern: '^-?\\d+(\\.\\d{1,6})?$', description: 'an amount, e.g. "8387.12"' },
  flat: {
    type: ['string', 'number', 'boolean'],
    description: 'a value inside an object whose fields are not declared (compared as a string)',
  },
};

export function valueSchema(spec: FieldSpec): JsonSchema {
  const enumValues = 'enum' in spec ? spec.enum : undefined;
  switch (spec.type as string) {
    case 'string':
      return enumValues ? { enum: [...enumValues] } : { type: 'string' };
    case 'datetime':
    case 'integer':
    case 'decimal':
      return { $ref: `#/$defs/${spec.type}` };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    default:
      return {};
  }
}

const FLAT_VALUE: JsonSchema = { $ref: '#/$defs/flat' };

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The filter of one scope as `$defs` entries (the scope's own, plus one per array of typed objects, for `any`). */
function filterDefs(name: string, scope: ScopeCapabilities, defs: Record<string, JsonSchema>): void {
  const { fields, untypedRoots } = scope;
  const self = { $ref: `#/$defs/${name}` };
  /** Each operator map once, referenced by every operator that takes it (neq as eq, gte/lt/lte as gt, ...). */
  const shared = (suffix: string, schema: JsonSchema) => {
    defs[`${name}.${suffix}`] = schema;
    return { $ref: `#/$defs/${name}.${suffix}` };
  };
  const byOp = (op: LeafOperator, value: (f: FieldCapability) => JsonSchema, flatValue: JsonSchema) => {
    const properties: Record<string, JsonSchema> = {};
    for (const f of fields) if (f.operators.includes(op)) properties[f.path] = value(f);
    const patternProperties: Record<string, JsonSchema> = {};
    if (scope.untypedOperators.includes(op)) {
      for (const p of untypedRoots) patternProperties[`^${escapeRegExp(p)}\\.`] = flatValue;
    }
    return {
      type: 'object',
      properties,
      ...(Object.keys(patternProperties).length ? { patternProperties } : {}),
      additionalProperties: false,
      minProperties: 1,
    };
  };
  const nullable = (s: JsonSchema) => ({ anyOf: [s, { type: 'null' }] });
  const eq = shared(
    'eq',
    byOp('eq', (f) => nullable(valueSchema(f.spec)), nullable(FLAT_VALUE)),
  );
  const range = shared(
    'range',
    byOp('gt', (f) => valueSchema(f.spec), FLAT_VALUE),
  );
  const list = byOp('in', (f) => ({ type: 'array', items: valueSchema(f.spec), minItems: 1, maxItems: 1024 }), {
    type: 'array',
    items: FLAT_VALUE,
    minItems: 1,
    maxItems: 1024,
  });
  const like = byOp('like', () => ({ type: 'string', description: '% any run, _ one character' }), {
    type: 'string',
  });
  const text = shared(
    'text',
    byOp('fuzzy', () => ({ type: 'string' }), {}),
  );
  const contains = byOp(
    'contains',
    (f) => (f.spec.type === 'array' && f.spec.items ? valueSchema(f.spec.items) : {}),
    {},
  );
  const anyProps: Record<string, JsonSchema> = {};
  for (const f of fields) {
    if (!f.operators.includes('any') || !f.items) continue;
    const itemName = `${name}__${f.path.replace(/\W/g, '_')}`;
    filterDefs(itemName, f.items, defs);
    anyProps[f.path] = { $ref: `#/$defs/${itemName}` };
  }
  defs[name] = {
    type: 'object',
    description: 'A condition: {"<operator>": {"<field>": <value>}}; several are ANDed.',
    properties: {
      eq,
      neq: eq,
      gt: range,
      gte: range,
      lt: range,
      lte: range,
      in: list,
      like,
      fuzzy: text,
      keyword: text,
      contains,
      any: { type: 'object', properties: anyProps, additionalProperties: false, minProperties: 1 },
      not: self,
      and: { type: 'array', items: self, minItems: 1 },
      or: { type: 'array', items: self, minItems: 1 },
    },
    additionalProperties: false,
    minProperties: 1,
  };
}

function searchBranch(kind: KindCatalog, entity: EntityCatalog, defs: Record<string, JsonSchema>): JsonSchema {
  const scope = searchCapabilities(entity.searchable ?? {});
  const filterName = `${toolSlug(kind.connectorType)}__${entity.name}`;
  filterDefs(filterName, scope, defs);
  const { fields, untypedRoots } = scope;
  const sortable = fields.filter((f) => f.sortable).map((f) => f.path);
  return {
    type: 'object',
    properties: {
      connector_id: { type: 'string' },
      entity: { const: entity.name },
      query: {
        type: 'object',
        properties: {
          filter: { $ref: `#/$defs/${filterName}` },
          ...(entity.embed?.length
            ? {
                semantic: {
                  type: 'object',
                  description: 'Rank the matching records by meaning (no sort with it); scores in meta.scores',
                  properties: {
                    text: {
                      type: 'string',
                      minLength: 1,
                      maxLength: 1000,
                      description: 'what the records should be about',
                    },
                    fields: { type: 'array', minItems: 1, items: { enum: [...entity.embed] } },
                    min_score: { type: 'number', minimum: 0, maximum: 1, description: 'least cosine similarity' },
                  },
                  required: ['text'],
                  additionalProperties: false,
                },
              }
            : {}),
          sort: {
            type: 'array',
            items: {
              type: 'object',
              properties: Object.fromEntries(sortable.map((p) => [p, { enum: ['asc', 'desc'] }])),
              additionalProperties: false,
              minProperties: 1,
              maxProperties: 1,
            },
          },
        },
        additionalProperties: false,
      },
      limit: { type: 'integer', minimum: 0, maximum: 10000, default: 100, description: '0: aggregations only' },
      fields: {
        type: 'array',
        minItems: 1,
        items: {
          anyOf: [
            { enum: fields.map((f) => f.path) },
            ...(untypedRoots.length
              ? [{ type: 'string', pattern: `^(${untypedRoots.map(escapeRegExp).join('|')})\\.` }]
              : []),
          ],
        },
      },
      cursor: { type: 'string', description: 'meta.cursor of the previous answer of this same search' },
      aggregate: aggregateSchema(fields),
    },
    required: ['connector_id', 'entity', 'query'],
    additionalProperties: false,
  };
}

/** `params.aggregate` (docs/search.md): named aggregations over the fields each one applies to. */
function aggregateSchema(fields: readonly FieldCapability[]): JsonSchema {
  const taking = (key: string) => fields.filter((f) => f.aggregations.includes(key)).map((f) => f.path);
  const countable = taking('count_by');
  const numeric = taking('sum');
  const metric = taking('avg');
  const dates = taking('histogram');
  const one = (key: string, paths: string[], extra: Record<string, JsonSchema> = {}, required: string[] = []) => ({
    type: 'object',
    properties: { [key]: { enum: paths }, ...extra },
    required: [key, ...required],
    additionalProperties: false,
  });
  const kinds: JsonSchema[] = [];
  if (countable.length)
    kinds.push(one('count_by', countable, { size: { type: 'integer', minimum: 1, maximum: 1000 } }));
  if (numeric.length) kinds.push(one('sum', numeric));
  if (metric.length) for (const op of ['avg', 'min', 'max']) kinds.push(one(op, metric));
  if (dates.length)
    kinds.push(one('histogram', dates, { interval: { enum: ['hour', 'day', 'week', 'month'] } }, ['interval']));
  return {
    type: 'object',
    description:
      'Named aggregations over the matching records, answered in meta.aggregations: {"by_status": {"count_by": "status"}}',
    additionalProperties: { oneOf: kinds },
  };
}

/** The search tool's input for a kind, or undefined when none of its entities is searchable. */
export function searchToolSchema(kind: KindCatalog): JsonSchema | undefined {
  const entities = Object.values(kind.entities).filter((e) => e.searchable);
  if (entities.length === 0) return undefined;
  const defs: Record<string, JsonSchema> = { ...VALUE_DEFS };
  const oneOf = entities.map((e) => searchBranch(kind, e, defs));
  return {
    type: 'object',
    properties: {
      connector_id: { type: 'string', description: `the id of a ${kind.connectorType} connector` },
      entity: { enum: entities.map((e) => e.name) },
    },
    required: ['connector_id', 'entity', 'query'],
    oneOf,
    $defs: defs,
  };
}

/** The execute tool's input for a kind: one branch per entity and live action, with that action's params. */
export function executeToolSchema(kind: KindCatalog): JsonSchema {
  const oneOf: JsonSchema[] = [];
  const entityNames: string[] = [];
  for (const entity of Object.values(kind.entities)) {
    entityNames.push(entity.name);
    for (const [action, schema] of Object.entries(entity.actions)) {
      if (!schema) continue;
      const params = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
      delete params.$schema;
      const required = Array.isArray(params.required) && params.required.length > 0;
      oneOf.push({
        type: 'object',
        properties: {
          connector_id: { type: 'string' },
          entity: { const: entity.name },
          action: { const: action },
          params,
          cursor: { type: 'string', description: 'meta.cursor of a previous answer cut to the size budget' },
        },
        required: ['connector_id', 'entity', 'action', ...(required ? ['params'] : [])],
        additionalProperties: false,
      });
    }
  }
  return {
    type: 'object',
    properties: {
      connector_id: { type: 'string', description: `the id of a ${kind.connectorType} connector` },
      entity: { enum: entityNames },
      action: { enum: ['list', 'get', 'create', 'update', 'delete', 'download'] },
    },
    required: ['connector_id', 'entity', 'action'],
    oneOf,
  };
}

/** The sql tool's arguments: a connector of the kind and one SELECT (docs/sql.md). */
export function sqlToolSchema(kind: KindCatalog): JsonSchema {
  return {
    type: 'object',
    properties: {
      connector_id: { type: 'string', description: `the id of a ${kind.connectorType} connector` },
      query: {
        type: 'string',
        description: 'one SELECT, e.g. SELECT status, COUNT(*) AS n FROM <table> GROUP BY status ORDER BY n DESC',
      },
      limit: { type: 'integer', minimum: 1, maximum: 10000, default: 100, description: 'rows per page' },
      cursor: { type: 'string', description: 'meta.cursor of the previous answer of this same query' },
    },
    required: ['connector_id', 'query'],
    additionalProperties: false,
  };
}
