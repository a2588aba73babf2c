import { searchCapabilities } from '@conduit/search-dsl';
import { z } from 'zod';
import { type EntityCatalog, type FieldSpec, type KindCatalog, toolSlug } from './catalog.ts';

/** What an agent needs to call a kind's tools: per entity, actions and searchable fields (short form). */
export function describeKind(kind: KindCatalog, connectorId: string) {
  return {
    connector_type: kind.connectorType,
    purpose: kind.purpose,
    tools: {
      execute: `${toolSlug(kind.connectorType)}_execute`,
      search: searchTool(kind),
      sql: searchTool(kind) && `${toolSlug(kind.connectorType)}_sql`,
    },
    entities: Object.fromEntries(
      Object.values(kind.entities).map((e) => [
        e.name,
        {
          actions: [...Object.keys(e.actions), ...(e.searchable ? ['search'] : [])],
          searchable_fields: e.searchable ? Object.keys(e.searchable) : [],
        },
      ]),
    ),
    next: `call describe_connector with {"connector_id": "${connectorId}", "entity": "<name>"} for parameters, operators and examples`,
  };
}

/** One entity in full: params as JSON Schema, each searchable path with its type and operators, example calls. */
export function describeEntity(kind: KindCatalog, entity: EntityCatalog, connectorId: string) {
  const actions = Object.fromEntries(
    Object.entries(entity.actions)
      .filter(([, schema]) => schema)
      .map(([action, schema]) => {
        const params = z.toJSONSchema(schema!, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
        delete params.$schema;
        return [action, { params }];
      }),
  );
  const fields = entity.searchable ? searchableFields(entity) : undefined;
  return {
    connector_type: kind.connectorType,
    entity: entity.name,
    record_key: entity.recordKey,
    record_fields: Object.fromEntries(Object.entries(entity.record).map(([n, s]) => [n, typeName(s)])),
    actions,
    ...(fields ? { search: { tool: searchTool(kind), fields } } : {}),
    examples: examples(kind, entity, connectorId, fields),
  };
}

function searchTool(kind: KindCatalog): string | null {
  return Object.values(kind.entities).some((e) => e.searchable) ? `${toolSlug(kind.connectorType)}_search` : null;
}

function typeName(spec: FieldSpec): string {
  const base =
    spec.type === 'array'
      ? `array${spec.items ? ` of ${typeName(spec.items)}` : ''}`
      : 'enum' in spec && spec.enum
        ? `${spec.type} (${spec.enum.join(' | ')})`
        : spec.type;
  return spec.nullable ? `${base}, nullable` : base;
}

type SearchField = { path: string; type: string; operators: string[]; sortable: boolean; aggregations: string[] };

function searchableFields(entity: EntityCatalog): SearchField[] {
  const scope = searchCapabilities(entity.searchable ?? {});
  return [
    ...scope.fields.map((f) => ({
      path: f.path,
      type: typeName(f.spec),
      operators: [...f.operators],
      sortable: f.sortable,
      aggregations: [...f.aggregations],
    })),
    ...scope.untypedRoots.map((p) => ({
      path: `${p}.<any key>`,
      type: 'value inside an object whose fields are not declared (compared as text)',
      operators: [...scope.untypedOperators],
      sortable: false,
      aggregations: [],
    })),
  ];
}

function examples(kind: KindCatalog, entity: EntityCatalog, connectorId: string, fields?: SearchField[]) {
  const out: { tool: string; arguments: Record<string, unknown> }[] = [];
  const execute = `${toolSlug(kind.connectorType)}_execute`;
  for (const [action, schema] of Object.entries(entity.actions)) {
    if (!schema) continue;
    const required = Object.entries(schema.shape)
      .filter(([, field]) => !(field as z.ZodType).safeParse(undefined).success)
      .map(([name]) => [name, `<${name}>`]);
    out.push({
      tool: execute,
      arguments: { connector_id: connectorId, entity: entity.name, action, params: Object.fromEntries(required) },
    });
  }
  if (fields) {
    const text = fields.find((f) => f.operators.includes('fuzzy'));
    const date = fields.find((f) => f.type.startsWith('datetime'));
    const filter: Record<string, unknown> = {};
    if (text) filter.fuzzy = { [text.path]: 'words to look for' };
    if (date) filter.gte = { [date.path]: '2024-01-01T00:00:00Z' };
    out.push({
      tool: `${toolSlug(kind.connectorType)}_search`,
      arguments: {
        connector_id: connectorId,
        entity: entity.name,
        query: {
          ...(Object.keys(filter).length ? { filter } : {}),
          ...(date ? { sort: [{ [date.path]: 'desc' }] } : {}),
        },
        limit: 20,
      },
    });
  }
  return out;
}
