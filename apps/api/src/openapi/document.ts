import { OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { z } from 'zod';
import type { ApiEnv } from '../deps.ts';
import { ROUTE_TABLE } from '../route-table.ts';

const DOCUMENT_CONFIG = {
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

/** Every route of the route table with the path it is mounted at, in mount order. */
function documentedRoutes(): { readonly path: string; readonly route: RouteConfig }[] {
  return ROUTE_TABLE.flatMap(({ base, sets }) =>
    sets.flatMap((set) => set.routes.map((route) => ({ path: joinPath(base, route.path), route }))),
  );
}

/** The OpenAPI 3.1 document of the route table: what GET /openapi.json serves and the client's types are made from. */
export function openApiDocument(): Record<string, unknown> {
  const app = new OpenAPIHono<ApiEnv>();
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'a token from POST /api/v1/oauth/token',
  });
  for (const { path, route } of documentedRoutes()) app.openAPIRegistry.registerPath({ ...route, path });
  return app.getOpenAPI31Document(DOCUMENT_CONFIG) as unknown as Record<string, unknown>;
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
  return documentedRoutes()
    .filter(({ route }) => route.method !== 'put')
    .map(({ path, route }) => {
      const json = (route.request?.body?.content as Content | undefined)?.['application/json'];
      const responses: Record<number, z.ZodType | null> = {};
      for (const [status, response] of Object.entries(route.responses)) {
        const content = (response as { content?: Content }).content;
        const schema = content?.['application/json']?.schema ?? content?.['application/problem+json']?.schema;
        responses[Number(status)] = (schema as z.ZodType | undefined) ?? null;
      }
      return {
        method: route.method as DocumentedOperation['method'],
        path,
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
