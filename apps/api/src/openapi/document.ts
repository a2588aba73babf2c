import { OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { z } from 'zod';
import type { ApiEnv } from '../deps.ts';
import { ROUTE_BASES } from '../route-bases.ts';
import { auditRoute } from '../routes/audit.ts';
import { catalogRoute, kindDefinitionRoute } from '../routes/catalog.ts';
import {
  activateDefinitionRoute,
  createDefinitionRoute,
  definitionSchemaRoute,
  deleteDefinitionRoute,
  getDefinitionRoute,
  getDefinitionVersionRoute,
  listDefinitionsRoute,
  testDefinitionRoute,
  validateDefinitionRoute,
} from '../routes/connector-definitions/routes.ts';
import { listChangesRoute } from '../routes/connectors/changes.ts';
import { changesStreamRoute } from '../routes/connectors/changes-stream.ts';
import { createConnectorRoute } from '../routes/connectors/create.ts';
import { executeRoute } from '../routes/connectors/execute.ts';
import {
  deleteConnectorRoute,
  getConnectorRoute,
  listConnectorsRoute,
  syncConnectorRoute,
  updateConnectorRoute,
} from '../routes/connectors/read-update-delete.ts';
import { sqlRoute } from '../routes/connectors/sql.ts';
import { webhookRoute } from '../routes/connectors/webhooks.ts';
import { healthzRoute, readyzRoute } from '../routes/health.ts';
import { metricsRoute } from '../routes/metrics.ts';
import { oauthCallbackRoute } from '../routes/oauth-consent/callback.ts';
import { oauthInitiateRoute } from '../routes/oauth-consent/initiate.ts';
import { tokenRoute } from '../routes/oauth-token.ts';
import {
  createEndpointRoute,
  deleteEndpointRoute,
  getEndpointRoute,
  listDeliveriesRoute,
  listEndpointsRoute,
  replayRoute,
  updateEndpointRoute,
} from '../routes/webhook-endpoints/routes.ts';

const CONNECTORS_BASE = ROUTE_BASES.connectors;

/**
 * Every route definition with the prefix it is mounted under (app.ts mounts the same objects). Routes added
 * elsewhere join this list: the documentation test checks it against the served document.
 */
export const DOCUMENTED_ROUTES: readonly { readonly base: string; readonly route: RouteConfig }[] = [
  { base: ROUTE_BASES.token, route: tokenRoute },
  { base: ROUTE_BASES.catalog, route: catalogRoute },
  { base: ROUTE_BASES.catalog, route: kindDefinitionRoute },
  ...[
    definitionSchemaRoute,
    validateDefinitionRoute,
    createDefinitionRoute,
    listDefinitionsRoute,
    getDefinitionRoute,
    getDefinitionVersionRoute,
    testDefinitionRoute,
    activateDefinitionRoute,
    deleteDefinitionRoute,
  ].map((route) => ({ base: ROUTE_BASES.connectorDefinitions, route })),
  { base: CONNECTORS_BASE, route: listConnectorsRoute },
  { base: CONNECTORS_BASE, route: createConnectorRoute },
  { base: CONNECTORS_BASE, route: oauthInitiateRoute },
  { base: ROUTE_BASES.oauthCallback, route: oauthCallbackRoute },
  { base: CONNECTORS_BASE, route: getConnectorRoute },
  { base: CONNECTORS_BASE, route: updateConnectorRoute },
  { base: CONNECTORS_BASE, route: deleteConnectorRoute },
  { base: CONNECTORS_BASE, route: syncConnectorRoute },
  { base: CONNECTORS_BASE, route: webhookRoute },
  { base: CONNECTORS_BASE, route: executeRoute },
  { base: CONNECTORS_BASE, route: listChangesRoute },
  { base: CONNECTORS_BASE, route: changesStreamRoute },
  ...[
    createEndpointRoute,
    listEndpointsRoute,
    getEndpointRoute,
    updateEndpointRoute,
    deleteEndpointRoute,
    listDeliveriesRoute,
    replayRoute,
  ].map((route) => ({ base: ROUTE_BASES.webhookEndpoints, route })),
  { base: CONNECTORS_BASE, route: sqlRoute },
  { base: ROUTE_BASES.audit, route: auditRoute },
  { base: '', route: healthzRoute },
  { base: '', route: readyzRoute },
  { base: '', route: metricsRoute },
];

export const DOCUMENT_CONFIG = {
  openapi: '3.1.0',
  info: {
    title: 'Conduit: hosted connector execution',
    version: '1.0.0',
    description:
      'Connect external systems, execute live actions, and search their synchronized copy. Errors are RFC 9457 problem details (application/problem+json). Create bodies are one shape per connector_type; execute bodies one {entity, action, params} per entity and action of the connector’s kind.',
  },
  servers: [{ url: '/' }],
  // The reference page's order: how a caller meets the API.
  tags: [
    { name: 'Authentication', description: 'client credentials → bearer token' },
    { name: 'Connectors', description: 'create, read, update, delete, sync' },
    { name: 'Execute and search', description: 'live actions and search over the synchronized copy' },
    { name: 'OAuth consent', description: 'connect a kind through its provider’s consent screen' },
    { name: 'Webhooks', description: 'upstream events, verified by the vendor’s signature' },
    { name: 'Changes', description: 'every change the copy applied, in order: the change feed' },
    { name: 'Webhook endpoints', description: 'signed deliveries of the changes to the customer’s endpoints' },
    { name: 'Audit', description: 'who called what, when, with which token: the append-only audit trail' },
    { name: 'Catalog', description: 'kinds, schemas, entities and searchable fields' },
    { name: 'Operations', description: 'health, readiness and metrics' },
  ],
};

/** Registers the bearer scheme the routes' `security` refers to. */
export function registerSecurity(app: OpenAPIHono<ApiEnv>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'a token from POST /api/v1/oauth/token',
  });
}

/** The OpenAPI 3.1 document of an app built from route definitions. */
export function documentOf(app: OpenAPIHono<ApiEnv>): Record<string, unknown> {
  return app.getOpenAPI31Document(DOCUMENT_CONFIG) as unknown as Record<string, unknown>;
}

/** The document without a running app (tools, tests): the same definitions, registered only. */
export function openApiDocument(): Record<string, unknown> {
  const app = new OpenAPIHono<ApiEnv>();
  registerSecurity(app);
  for (const { base, route } of DOCUMENTED_ROUTES) {
    app.openAPIRegistry.registerPath({ ...route, path: joinPath(base, route.path) });
  }
  return documentOf(app);
}

/** An operation as documented: what the documentation test replays against the running API. */
export interface DocumentedOperation {
  readonly method: 'get' | 'post' | 'patch' | 'delete';
  readonly path: string;
  readonly summary: string;
  readonly auth: boolean;
  readonly request?: z.ZodType;
  readonly examples?: readonly { summary: string; value: unknown }[];
  /** Status → response schema (null: no JSON body). */
  readonly responses: Readonly<Record<number, z.ZodType | null>>;
}

type Content = Record<string, { schema?: unknown; examples?: Record<string, { summary?: string; value: unknown }> }>;

export function documentedOperations(): DocumentedOperation[] {
  return DOCUMENTED_ROUTES.filter(({ route }) => route.method !== 'put').map(({ base, route }) => {
    const json = (route.request?.body?.content as Content | undefined)?.['application/json'];
    const responses: Record<number, z.ZodType | null> = {};
    for (const [status, response] of Object.entries(route.responses)) {
      const content = (response as { content?: Content }).content;
      const schema = content?.['application/json']?.schema ?? content?.['application/problem+json']?.schema;
      responses[Number(status)] = (schema as z.ZodType | undefined) ?? null;
    }
    return {
      method: route.method as DocumentedOperation['method'],
      path: joinPath(base, route.path),
      summary: route.summary ?? '',
      auth: (route.security ?? []).length > 0,
      ...(json?.schema ? { request: json.schema as z.ZodType } : {}),
      ...(json?.examples
        ? { examples: Object.values(json.examples).map((e) => ({ summary: e.summary ?? '', value: e.value })) }
        : {}),
      responses,
    };
  });
}

function joinPath(base: string, path: string): string {
  if (path === '/') return base || '/';
  return `${base}${path}`;
}
