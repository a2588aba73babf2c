import { CONNECTOR_DEFINITIONS } from '@conduit/connectors';
import { OAuthInitiateBody } from '@conduit/oauth-consent';
import { SearchParamsSchema } from '@conduit/search-dsl';
import { z } from 'zod';
import { CreateConnectorBody, ExecuteBody, SyncBody, UpdateConnectorBody } from '../routes/connectors/schemas.ts';
import { TokenRequest } from '../routes/oauth-token.ts';
import { createExample, executeExamples } from './examples.ts';
import {
  ConnectorSchema,
  ExecuteResultSchema,
  OAuthInitiateResponseSchema,
  ProblemSchema,
  SyncAcceptedSchema,
  TokenResponseSchema,
  WebhookAcceptedSchema,
} from './schemas.ts';

/** An operation as documented: what the documentation test replays against the running API. */
export interface DocumentedOperation {
  readonly method: 'get' | 'post' | 'patch' | 'delete';
  readonly path: string;
  readonly summary: string;
  readonly auth: boolean;
  readonly request?: z.ZodType;
  readonly examples?: readonly { summary: string; value: unknown }[];
  /** Status → response schema (null: no body). */
  readonly responses: Readonly<Record<number, z.ZodType | null>>;
}

const problems = { 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema, 429: ProblemSchema } as const;

export function documentedOperations(): DocumentedOperation[] {
  const kinds = CONNECTOR_DEFINITIONS.map((d) => d.catalog);
  return [
    {
      method: 'post',
      path: '/api/v1/oauth/token',
      summary: 'Exchange client credentials for a bearer token',
      auth: false,
      request: TokenRequest,
      examples: [
        {
          summary: 'client credentials',
          value: { grant_type: 'client_credentials', client_id: 'demo-client', client_secret: 'demo-secret-change-me' },
        },
      ],
      responses: { 200: TokenResponseSchema, 400: ProblemSchema, 401: ProblemSchema },
    },
    {
      method: 'post',
      path: '/api/v1/integrations/connectors',
      summary: 'Create a connector (credentials are checked against the upstream, then encrypted)',
      auth: true,
      request: CreateConnectorBody,
      examples: kinds.map((k) => ({ summary: k.connectorType, value: createExample(k) })),
      responses: { 201: ConnectorSchema, ...problems, 409: ProblemSchema, 502: ProblemSchema },
    },
    {
      method: 'post',
      path: '/api/v1/integrations/connectors/oauth/initiate',
      summary:
        'Start the OAuth consent flow: a consent_url with a signed, single-use state (kinds whose vendor offers OAuth)',
      auth: true,
      request: OAuthInitiateBody,
      examples: [
        {
          summary: 'Typeform',
          value: { customer_name: 'acme', connector_type: 'Typeform', redirect_url: 'https://app.example/connected' },
        },
      ],
      responses: { 200: OAuthInitiateResponseSchema, ...problems, 409: ProblemSchema },
    },
    {
      method: 'get',
      path: '/api/v1/integrations/connectors/oauth/callback',
      summary:
        'Where the provider sends the user back: creates the connector, then 302 to redirect_url?connector_id=… (or ?error=…)',
      auth: false,
      responses: { 302: null, 400: ProblemSchema },
    },
    {
      method: 'get',
      path: '/api/v1/integrations/connectors',
      summary: "The caller's connectors, oldest first, each with its per-entity sync status",
      auth: true,
      responses: { 200: z.object({ data: z.array(ConnectorSchema) }), 401: ProblemSchema, 429: ProblemSchema },
    },
    {
      method: 'get',
      path: '/api/v1/integrations/connectors/{connector_id}',
      summary: 'A connector with its per-entity sync status (never its credentials)',
      auth: true,
      responses: { 200: ConnectorSchema, ...problems },
    },
    {
      method: 'patch',
      path: '/api/v1/integrations/connectors/{connector_id}',
      summary:
        'Replace the name or the credentials (credentials are re-checked), or set the webhook secret (null removes it; never shown again)',
      auth: true,
      request: UpdateConnectorBody,
      examples: [{ summary: 'rename', value: { name: 'renamed' } }],
      responses: { 200: ConnectorSchema, ...problems, 502: ProblemSchema },
    },
    {
      method: 'delete',
      path: '/api/v1/integrations/connectors/{connector_id}',
      summary: 'Delete a connector, its indexed documents and its schedules',
      auth: true,
      responses: { 204: null, ...problems },
    },
    {
      method: 'post',
      path: '/api/v1/integrations/connectors/{connector_id}/sync',
      summary: 'Trigger a sync now (all replicated entities, or one)',
      auth: true,
      request: SyncBody,
      examples: [{ summary: 'all entities', value: {} }],
      responses: { 202: SyncAcceptedSchema, ...problems },
    },
    {
      method: 'post',
      path: '/api/v1/integrations/connectors/{connector_id}/webhooks',
      summary:
        "Upstream webhooks (Orb, Typeform, Sentry, incident.io, Zendesk): public, verified by the vendor's signature over the raw body with the connector's webhook secret; 202 once queued (deduplicated by event id)",
      auth: false,
      responses: {
        202: WebhookAcceptedSchema,
        400: ProblemSchema,
        401: ProblemSchema,
        404: ProblemSchema,
        413: ProblemSchema,
      },
    },
    {
      method: 'post',
      path: '/api/v1/integrations/connectors/{connector_id}/execute',
      summary: 'Execute {entity, action, params}: search answers from the index, the rest passes through live',
      auth: true,
      request: ExecuteBody,
      examples: kinds.flatMap((k) =>
        executeExamples(k).map((e) => ({ summary: `${k.connectorType}: ${e.summary}`, value: e.value })),
      ),
      responses: { 200: ExecuteResultSchema, ...problems, 413: ProblemSchema, 502: ProblemSchema, 503: ProblemSchema },
    },
  ];
}

/** OpenAPI 3.1, generated from the same zod schemas that validate requests. */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of documentedOperations()) {
    const responses: Record<string, unknown> = {};
    for (const [status, schema] of Object.entries(op.responses)) {
      responses[status] = schema
        ? {
            description: Number(status) >= 400 ? 'problem' : 'success',
            content: {
              [Number(status) >= 400 ? 'application/problem+json' : 'application/json']: { schema: toJson(schema) },
            },
          }
        : { description: 'no content' };
    }
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      summary: op.summary,
      ...(op.auth ? { security: [{ bearer: [] }] } : { security: [] }),
      ...(op.path.includes('{connector_id}')
        ? { parameters: [{ name: 'connector_id', in: 'path', required: true, schema: { type: 'string' } }] }
        : {}),
      ...(op.request
        ? {
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: toJson(op.request),
                  ...(op.examples
                    ? { examples: Object.fromEntries(op.examples.map((e, i) => [`example${i}`, e])) }
                    : {}),
                },
              },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Conduit: hosted connector execution',
      version: '1.0.0',
      description:
        'Connect external systems, execute live actions, and search their synchronized copy. Search params (action `search`) follow the schema under components.schemas.SearchParams.',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { SearchParams: toJson(SearchParamsSchema), Problem: toJson(ProblemSchema) },
    },
    paths,
  };
}

function toJson(schema: z.ZodType): unknown {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any', io: 'input' });
}
