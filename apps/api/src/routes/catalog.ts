import { type ConnectorDefinition, exportDefinition, findConnectorDefinition } from '@conduit/connectors';
import { oauthDepsFrom } from '@conduit/oauth-consent';
import { createRoute, OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../deps.ts';
import { jsonResponse, mountRoute, problems } from '../openapi/route-kit.ts';
import { ApiError } from '../problem.ts';
import { catalogView } from '../services/catalog-view.ts';

// A component of its own, so that the document (and the client's types) name it once for every schema in the catalog.
const JsonSchemaObject = z.record(z.string(), z.unknown()).describe('JSON Schema (2020-12)').meta({ id: 'JsonSchema' });

export const CatalogSchema = z
  .object({
    kinds: z.array(
      z.object({
        connector_type: z.string(),
        purpose: z.string(),
        oauth: z.boolean().describe('the consent flow is configured for this kind on this deployment'),
        credentials: JsonSchemaObject,
        config: JsonSchemaObject,
        replication_config: JsonSchemaObject,
        entities: z.array(
          z.object({
            name: z.string(),
            record_key: z.string(),
            actions: z.array(z.string()),
            params: z.record(z.string(), JsonSchemaObject),
            searchable: z.array(
              z.object({
                path: z.string(),
                type: z.string(),
                nullable: z.boolean(),
                enum: z.array(z.string()).optional(),
              }),
            ),
            sync_mode: z.string().nullable(),
          }),
        ),
      }),
    ),
  })
  .meta({ id: 'Catalog' });

export const kindDefinitionRoute = createRoute({
  tags: ['Catalog'],
  method: 'get',
  path: '/{kind}/definition',
  summary: 'A built-in kind in the connector definition format, as far as it can be said (docs/definitions.md)',
  security: [],
  request: { params: z.object({ kind: z.string().min(1).max(64) }) },
  responses: {
    200: jsonResponse(
      z.object({
        definition: z.record(z.string(), z.unknown()),
        unexpressed: z.array(z.object({ path: z.string(), reason: z.string() })),
      }),
      'the definition, and what of the kind is code (left out)',
    ),
    ...problems(404),
  },
});

export const catalogRoute = createRoute({
  tags: ['Catalog'],
  method: 'get',
  path: '/',
  summary: 'Every kind’s credential, config and replication schemas, entities, actions, params and searchable fields',
  security: [],
  responses: { 200: jsonResponse(CatalogSchema, 'the catalog') },
});

/**
 * GET /api/v1/catalog: every kind's credential, config and replication schemas (JSON Schema), its entities'
 * actions, params and searchable fields. Public like /openapi.json: it describes the API, never a tenant's data.
 */
export function catalogRoutes(deps: Pick<ApiDeps, 'env' | 'redis' | 'oauth'>): OpenAPIHono<ApiEnv> {
  const app = new OpenAPIHono<ApiEnv>();
  const body = JSON.stringify(catalogView(oauthDepsFrom(deps).providers.configured()));
  mountRoute(app, catalogRoute, (c) =>
    c.body(body, 200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' }),
  );
  mountRoute(app, kindDefinitionRoute, (c) => {
    const kind = findConnectorDefinition(c.req.param('kind') ?? '');
    if (!kind) throw new ApiError(404, 'kind_not_found', `no built-in kind ${JSON.stringify(c.req.param('kind'))}`);
    return c.json(exportDefinition(kind as unknown as ConnectorDefinition));
  });
  return app;
}
