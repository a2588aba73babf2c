import type { Conduit } from '@conduit/client';
import type { ToolDefinition } from './tools.ts';

const DEFINITION = {
  type: 'object',
  description:
    'A connector definition document (docs/definitions.md): name, base_url, auth, entities with key, fields, list ' +
    '(path, records, params, paging), get, create/update/delete and replication. Its JSON Schema: ' +
    'GET /api/v1/connector-definitions/schema.',
} as const;

/**
 * Tools that let an agent build a connector kind from an API's documentation: check a definition (every problem at
 * once, with JSON pointers and "did you mean"), store it, and read the upstream with it without writing anything.
 */
export const DEFINITION_TOOLS: readonly ToolDefinition[] = [
  {
    name: 'validate_connector_definition',
    title: 'Validate a connector definition',
    description:
      'Checks a connector definition without storing it. Answers {"valid": true}, or a tool error listing every ' +
      'problem with its JSON pointer (e.g. /entities/tickets/list/paging/type) and a did-you-mean.',
    inputSchema: {
      type: 'object',
      properties: { definition: DEFINITION },
      required: ['definition'],
      additionalProperties: false,
    },
  },
  {
    name: 'save_connector_definition',
    title: 'Save a connector definition',
    description:
      'Stores a connector definition for the organization: a new kind (active at once), or the next version of one ' +
      '(activate it with the API). Answers {name, version}. Connectors of the kind are then created as for any kind.',
    inputSchema: {
      type: 'object',
      properties: { definition: DEFINITION },
      required: ['definition'],
      additionalProperties: false,
    },
  },
  {
    name: 'test_connector_definition',
    title: 'Test a connector definition against the upstream',
    description:
      'Reads the upstream with a saved definition (its active version, or `version`), writing nothing: per entity ' +
      'the first records, pages read and problems found (records path, keys, field types, cursors), and every ' +
      'request made (URL without secrets, status, ms).',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'the kind name' },
        credentials: { type: 'object', description: 'what the definition’s auth names, e.g. {"api_key": "..."}' },
        config: { type: 'object', description: 'values of the base_url variables' },
        version: { type: 'integer', minimum: 1 },
        entities: { type: 'array', items: { type: 'string' } },
        max_pages: { type: 'integer', minimum: 1, maximum: 5 },
      },
      required: ['name', 'credentials'],
      additionalProperties: false,
    },
  },
];

type Args = Record<string, unknown>;

/** Runs a definition tool, or answers undefined for any other tool name. API problems are thrown as they come. */
export async function callDefinitionTool(conduit: Conduit, name: string, args: Args): Promise<unknown> {
  const definition = (args.definition ?? {}) as Record<string, unknown>;
  switch (name) {
    case 'validate_connector_definition':
      return conduit.definitions.validate(definition);
    case 'save_connector_definition':
      return conduit.definitions.create(definition);
    case 'test_connector_definition': {
      const { name: kind, ...input } = args;
      return conduit.definitions.test(String(kind ?? ''), input as { credentials: Record<string, unknown> });
    }
    default:
      return undefined;
  }
}
