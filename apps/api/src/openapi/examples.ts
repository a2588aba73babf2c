import type { KindCatalog } from '@conduit/connectors';
import { z } from 'zod';

/**
 * Request examples derived from each kind's catalog: credentials with placeholder values of the first
 * credential method, the kind's config, a start_date in its required form, and execute calls.
 */
export function createExample(catalog: KindCatalog) {
  return {
    customer_name: 'acme',
    connector_type: catalog.connectorType,
    name: `${catalog.purpose} connector`,
    credentials: placeholders(catalog.credentials),
    replication_config: { start_date: '2024-01-01T00:00:00Z' },
    ...(Object.keys(placeholders(catalog.config)).length > 0 ? { config: placeholders(catalog.config) } : {}),
  };
}

export function executeExamples(catalog: KindCatalog) {
  const examples: { summary: string; value: { entity: string; action: string; params: Record<string, unknown> } }[] =
    [];
  const listable = Object.values(catalog.entities).find((e) => e.actions.list?.safeParse({}).success);
  if (listable)
    examples.push({ summary: `list ${listable.name}`, value: { entity: listable.name, action: 'list', params: {} } });
  const searchable = Object.values(catalog.entities).find((e) => e.searchable);
  if (searchable) {
    const field =
      Object.entries(searchable.searchable ?? {}).find(([, spec]) => spec.type === 'string')?.[0] ??
      searchable.recordKey;
    examples.push({
      summary: `search ${searchable.name}`,
      value: {
        entity: searchable.name,
        action: 'search',
        params: {
          query: { filter: { like: { [field]: 'a%' } }, sort: [{ [searchable.recordKey]: 'asc' }] },
          limit: 10,
        },
      },
    });
  }
  return examples;
}

function placeholders(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as JsonSchema;
  const objectSchema = json.anyOf?.[0] ?? json.oneOf?.[0] ?? json;
  const out: Record<string, unknown> = {};
  for (const name of objectSchema.required ?? []) {
    const property = objectSchema.properties?.[name];
    out[name] = name === 'subdomain' ? 'acme' : property?.pattern?.includes('\\d{10}') ? '1234567890' : `<${name}>`;
  }
  return out;
}

interface JsonSchema {
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  required?: string[];
  pattern?: string;
  properties?: Record<string, JsonSchema>;
}
