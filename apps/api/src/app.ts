import { randomBytes } from 'node:crypto';
import { publicBaseUrl } from '@conduit/config';
import { mcpHttpHandler } from '@conduit/mcp';
import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { TrieRouter } from 'hono/router/trie-router';
import type { ApiDeps, ApiEnv } from './deps.ts';
import {
  auditMcpToolCalls,
  auditTrail,
  connectorActionOf,
  definitionActionOf,
  MCP_MARK_HEADER,
  webhookEndpointActionOf,
} from './middleware/audit-trail.ts';
import { authenticate } from './middleware/authenticate.ts';
import { mcpMessage } from './middleware/mcp-message.ts';
import { mcpOrigin, parseAllowedOrigins } from './middleware/mcp-origin.ts';
import { observeRequests } from './middleware/observe-requests.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { requestId } from './middleware/request-id.ts';
import { securityHeaders } from './middleware/security-headers.ts';
import { documentOf, registerSecurity } from './openapi/document.ts';
import { ApiError, problemResponse } from './problem.ts';
import { ROUTE_BASES, routeGroupOf } from './route-bases.ts';
import { auditRoutes } from './routes/audit.ts';
import { catalogRoutes } from './routes/catalog.ts';
import { registerConnectorDefinitions } from './routes/connector-definitions/routes.ts';
import { registerChanges } from './routes/connectors/changes.ts';
import { registerChangesStream } from './routes/connectors/changes-stream.ts';
import { registerCreate } from './routes/connectors/create.ts';
import { registerExecute } from './routes/connectors/execute.ts';
import { registerReadUpdateDelete } from './routes/connectors/read-update-delete.ts';
import { registerSql } from './routes/connectors/sql.ts';
import { webhookRoutes } from './routes/connectors/webhooks.ts';
import { consoleRoutes } from './routes/console.ts';
import { docsRoutes } from './routes/docs.ts';
import { healthRoutes } from './routes/health.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { oauthCallbackRoutes } from './routes/oauth-consent/callback.ts';
import { registerOAuthInitiate } from './routes/oauth-consent/initiate.ts';
import { oauthTokenRoutes } from './routes/oauth-token.ts';
import { registerWebhookEndpoints } from './routes/webhook-endpoints/routes.ts';

const ONE_MIB = 1024 * 1024;
// files_upload carries up to 5 MB decoded, which is ~6.7 MB of base64 plus the envelope.
const EXECUTE_LIMIT = 7 * ONE_MIB;

export function buildApp(deps: ApiDeps): OpenAPIHono<ApiEnv> {
  // The router is chosen, not left to hono's SmartRouter, which tries RegExpRouter on the first request and falls
  // back to TrieRouter when that refuses the routes (https://hono.dev/docs/concepts/routers). RegExpRouter refuses
  // a literal segment beside a parameter for the same method, and the connectors' public paths have both: POST
  // /oauth/initiate beside POST /:connector_id/execute, GET /oauth/callback (the redirect URI registered with
  // providers) beside GET /:connector_id. Matching the execute path costs ~2.5 µs on TrieRouter, ~1 µs on RegExpRouter.
  const app = new OpenAPIHono<ApiEnv>({ router: new TrieRouter() });
  registerSecurity(app);
  const baseUrl = publicBaseUrl(deps.env);
  app.use('*', securityHeaders({ publicBaseUrl: baseUrl }));
  app.use('*', observeRequests(deps.metrics));
  app.use('*', requestId(deps.logger));
  app.onError((error, c) => {
    const response = problemResponse(c, error);
    // A caller that went away gets no answer; what its request stopped is not an error of ours.
    if (response.status >= 500 && !c.req.raw.signal.aborted) c.get('logger')?.error('unhandled error', { error });
    return response;
  });
  app.notFound((c) =>
    problemResponse(c, new ApiError(404, 'not_found', `no route for ${c.req.method} ${new URL(c.req.url).pathname}`)),
  );

  const tooLarge = () => {
    throw new ApiError(413, 'payload_too_large', 'the request body is too large');
  };
  app.use('/api/*', async (c, next) => {
    const limit = c.req.path.endsWith('/execute') ? EXECUTE_LIMIT : ONE_MIB;
    // Node's parser never delivers more than Content-Length bytes, so a declared length is checked as a number
    // (hono's bodyLimit would first turn the request into a web Request with a body stream: a fifth of a
    // search's CPU). A request with neither header has no body. Chunked bodies are counted by bodyLimit.
    const transferEncoding = c.req.header('transfer-encoding');
    const contentLength = c.req.header('content-length');
    if (transferEncoding === undefined) {
      if (contentLength === undefined) return next();
      const declared = Number(contentLength);
      if (Number.isSafeInteger(declared) && declared >= 0) {
        if (declared > limit) tooLarge();
        return next();
      }
    }
    return bodyLimit({ maxSize: limit, onError: tooLarge })(c, next);
  });

  app.route('/', healthRoutes(deps));
  app.route('/', metricsRoutes(deps));
  app.route(ROUTE_BASES.catalog, catalogRoutes(deps));
  app.route('/', consoleRoutes());
  app.route(ROUTE_BASES.token, oauthTokenRoutes(deps));
  app.route(ROUTE_BASES.oauthCallback, oauthCallbackRoutes(deps));
  // Public: upstream vendors call it, authenticated by their signature (never a bearer token).
  app.route(ROUTE_BASES.connectors, webhookRoutes(deps));

  // The API calls MCP tools make carry this process's mark, so the trail says they came through MCP.
  const mcpMark = randomBytes(16).toString('base64url');
  const auditing = deps.env.AUDIT_TRAIL === 'on';
  // One of each for every bearer-token route group: the rate limit's leases are then shared by them all.
  const signedIn = authenticate(deps.tokens, deps.clientAccess);
  const limited = rateLimit({
    redis: deps.redis,
    prefix: deps.env.NAMESPACE,
    limit: deps.env.RATE_LIMIT_PER_MINUTE,
    windowSeconds: 60,
    onRefused: (path) => deps.metrics.requestsRefused.inc({ route: routeGroupOf(path), reason: 'rate_limited' }),
  });
  const connectors = new OpenAPIHono<ApiEnv>();
  connectors.use('*', signedIn);
  // The rate limit before the trail: a refused call did nothing and is counted (onRefused), not audited.
  connectors.use('*', limited);
  connectors.use('*', auditTrail({ audit: deps.audit, enabled: auditing, actionOf: connectorActionOf, mcpMark }));
  registerCreate(connectors, deps);
  registerOAuthInitiate(connectors, deps);
  registerReadUpdateDelete(connectors, deps);
  registerExecute(connectors, deps);
  registerChanges(connectors, deps);
  registerChangesStream(connectors, deps);
  registerSql(connectors, deps);
  app.route(ROUTE_BASES.connectors, connectors);
  app.route(ROUTE_BASES.audit, auditRoutes(deps, [signedIn, limited]));

  const webhookEndpoints = new OpenAPIHono<ApiEnv>();
  webhookEndpoints.use('*', signedIn);
  webhookEndpoints.use('*', limited);
  webhookEndpoints.use(
    '*',
    auditTrail({ audit: deps.audit, enabled: auditing, actionOf: webhookEndpointActionOf, mcpMark }),
  );
  registerWebhookEndpoints(webhookEndpoints, deps);
  app.route(ROUTE_BASES.webhookEndpoints, webhookEndpoints);

  const definitions = new OpenAPIHono<ApiEnv>();
  definitions.use('*', signedIn);
  definitions.use('*', limited);
  definitions.use('*', auditTrail({ audit: deps.audit, enabled: auditing, actionOf: definitionActionOf, mcpMark }));
  registerConnectorDefinitions(definitions, deps);
  app.route(ROUTE_BASES.connectorDefinitions, definitions);

  // MCP (docs/operations.md): the same bearer token; the tools call this app's public routes in-process.
  const mcp = mcpHttpHandler({
    apiFetch: async (request) => {
      const headers = new Headers(request.headers);
      headers.set(MCP_MARK_HEADER, mcpMark);
      return app.fetch(new Request(request, { headers }));
    },
  });
  app.use(
    '/mcp',
    mcpOrigin({ allowed: parseAllowedOrigins(deps.env.MCP_ALLOWED_ORIGINS), publicBaseUrl: baseUrl }),
    signedIn,
    bodyLimit({ maxSize: ONE_MIB, onError: tooLarge }),
    mcpMessage(),
    auditMcpToolCalls({ audit: deps.audit, enabled: auditing }),
  );
  app.all('/mcp', (c) => mcp(c.req.raw));

  // The document of exactly what is mounted above, generated from the route definitions once, on first request.
  let document: string | undefined;
  app.get('/openapi.json', (c) => {
    document ??= JSON.stringify(documentOf(app));
    return c.body(document, 200, { 'content-type': 'application/json' });
  });
  app.route('/', docsRoutes());
  return app;
}
