import { z } from 'zod';
import { type EntityCatalog, type FieldMap, type FieldSpec, type KindCatalog, toolSlug } from './catalog.ts';

/**
 * Tool input schemas (JSON Schema 2020-12) derived from the catalog: one `oneOf` branch per entity (and action),
 * each with that entity's params schema (from its zod schema) or its search filter, whose properties are the
 * entity's searchable fields with the operators that apply to them (DESIGN §4, as
 * packages/search-dsl/src/validate/validate-filter.ts checks them).
 */
export type JsonSchema = { [key: string]: unknown };

const SCALARS = new Set(['string', 'datetime', 'integer', 'number', 'decimal', 'boolean']);
const RANGEABLE = new Set(['string', 'datetime', 'integer', 'number', 'decimal']);

/** Which operators apply to a field, for describe_connector and the schemas below. */
export function operatorsFor(spec: FieldSpec): string[] {
  const type = spec.type as string;
  if (type === 'array') {
    const items = spec.type === 'array' ? spec.items : undefined;
    if (items?.type === 'object' && items.fields) return ['any'];
    return items && SCALARS.has(items.type) ? ['contains'] : [];
  }
  if (type === 'object') return [];
  const ops = ['eq', 'neq', 'in'];
  if (RANGEABLE.has(type)) ops.push('gt', 'gte', 'lt', 'lte');
  if (type === 'string') ops.push('like', 'fuzzy', 'keyword');
  return ops;
}

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

type Entry = { path: string; spec: FieldSpec };

/** Declared paths and the objects whose undeclared internals are filterable by dotted path (field-resolution.ts). */
export function scopePaths(fields: FieldMap, topLevel: boolean): { typed: Entry[]; flat: string[] } {
  const typed: Entry[] = [];
  const flat: string[] = [];
  const walk = (map: FieldMap, prefix: string, inTopLevelObject: boolean) => {
    for (const [name, spec] of Object.entries(map)) {
      const path = prefix + name;
      typed.push({ path, spec });
      if (spec.type !== 'object') continue;
      if (!spec.fields) {
        if (!inTopLevelObject) flat.push(path);
      } else {
        if (topLevel && prefix === '') flat.push(path);
        walk(spec.fields, `${path}.`, inTopLevelObject || (topLevel && prefix === ''));
      }
    }
  };
  walk(fields, '', false);
  return { typed, flat };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The filter of one scope as `$defs` entries (the scope's own, plus one per array of typed objects, for `any`). */
function filterDefs(name: string, fields: FieldMap, topLevel: boolean, defs: Record<string, JsonSchema>): void {
  const { typed, flat } = scopePaths(fields, topLevel);
  const self = { $ref: `#/$defs/${name}` };
  /** Each operator map once, referenced by every operator that takes it (neq as eq, gte/lt/lte as gt, ...). */
  const shared = (suffix: string, schema: JsonSchema) => {
    defs[`${name}.${suffix}`] = schema;
    return { $ref: `#/$defs/${name}.${suffix}` };
  };
  const byOp = (ops: string[], value: (e: Entry) => JsonSchema, flatValue: JsonSchema | undefined) => {
    const properties: Record<string, JsonSchema> = {};
    for (const e of typed) if (ops.some((op) => operatorsFor(e.spec).includes(op))) properties[e.path] = value(e);
    const patternProperties: Record<string, JsonSchema> = {};
    if (flatValue) for (const p of flat) patternProperties[`^${escapeRegExp(p)}\\.`] = flatValue;
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
    byOp(['eq'], (e) => nullable(valueSchema(e.spec)), nullable(FLAT_VALUE)),
  );
  const range = shared(
    'range',
    byOp(['gt'], (e) => valueSchema(e.spec), FLAT_VALUE),
  );
  const list = byOp(['in'], (e) => ({ type: 'array', items: valueSchema(e.spec), minItems: 1, maxItems: 1024 }), {
    type: 'array',
    items: FLAT_VALUE,
    minItems: 1,
    maxItems: 1024,
  });
  const like = byOp(['like'], () => ({ type: 'string', description: '% any run, _ one character' }), {
    type: 'string',
  });
  const text = shared(
    'text',
    byOp(['fuzzy'], () => ({ type: 'string' }), undefined),
  );
  const contains = byOp(
    ['contains'],
    (e) => (e.spec.type === 'array' && e.spec.items ? valueSchema(e.spec.items) : {}),
    undefined,
  );
  const anyProps: Record<string, JsonSchema> = {};
  for (const e of typed) {
    if (e.spec.type !== 'array' || e.spec.items?.type !== 'object' || !e.spec.items.fields) continue;
    const itemName = `${name}__${e.path.replace(/\W/g, '_')}`;
    filterDefs(itemName, e.spec.items.fields, false, defs);
    anyProps[e.path] = { $ref: `#/$defs/${itemName}` };
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
  const searchable = entity.searchable ?? {};
  const filterName = `${toolSlug(kind.connectorType)}__${entity.name}`;
  filterDefs(filterName, searchable, true, defs);
  const { typed, flat } = scopePaths(searchable, true);
  const sortable = typed.filter((e) => SCALARS.has(e.spec.type)).map((e) => e.path);
  return {
    type: 'object',
    properties: {
      connector_id: { type: 'string' },
      entity: { const: entity.name },
      query: {
        type: 'object',
        properties: {
          filter: { $ref: `#/$defs/${filterName}` },
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
            { enum: typed.map((e) => e.path) },
            ...(flat.length ? [{ type: 'string', pattern: `^(${flat.map(escapeRegExp).join('|')})\\.` }] : []),
          ],
        },
      },
      cursor: { type: 'string', description: 'meta.cursor of the previous answer of this same search' },
      aggregate: aggregateSchema(typed),
    },
    required: ['connector_id', 'entity', 'query'],
    additionalProperties: false,
  };
}

/** `params.aggregate` (DESIGN §4): named aggregations over the fields each one applies to. */
function aggregateSchema(typed: readonly Entry[]): JsonSchema {
  const ofTypes = (types: string[]) => typed.filter((e) => types.includes(e.spec.type)).map((e) => e.path);
  const scalarArrays = typed
    .filter((e) => e.spec.type === 'array' && e.spec.items !== undefined && SCALARS.has(e.spec.items.type))
    .map((e) => e.path);
  const countable = [...ofTypes([...SCALARS]), ...scalarArrays];
  const numeric = ofTypes(['integer', 'number', 'decimal']);
  const metric = ofTypes(['integer', 'number', 'decimal', 'datetime']);
  const dates = ofTypes(['datetime']);
  const one = (key: string, fields: string[], extra: Record<string, JsonSchema> = {}) => ({
    type: 'object',
    properties: { [key]: { enum: fields }, ...extra },
    required: [key],
    additionalProperties: false,
  });
  const kinds: JsonSchema[] = [];
  if (countable.length)
    kinds.push(one('count_by', countable, { size: { type: 'integer', minimum: 1, maximum: 1000 } }));
  if (numeric.length) kinds.push(one('sum', numeric));
  if (metric.length) for (const op of ['avg', 'min', 'max']) kinds.push(one(op, metric));
  if (dates.length) kinds.push(one('histogram', dates, { interval: { enum: ['hour', 'day', 'week', 'month'] } }));
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
