import { randomBytes } from 'node:crypto';
import { publicBaseUrl } from '@conduit/config';
import { mcpHttpHandler } from '@conduit/mcp';
import { Hono } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import type { ApiDeps, ApiEnv } from './deps.ts';
import { auditMcpToolCalls, auditTrail, MCP_MARK_HEADER } from './middleware/audit-trail.ts';
import { authenticate } from './middleware/authenticate.ts';
import { bodySize } from './middleware/body-size.ts';
import { mcpMessage } from './middleware/mcp-message.ts';
import { mcpOrigin, parseAllowedOrigins } from './middleware/mcp-origin.ts';
import { meterUsage } from './middleware/meter-usage.ts';
import { observeRequests } from './middleware/observe-requests.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { requestId } from './middleware/request-id.ts';
import { securityHeaders } from './middleware/security-headers.ts';
import { traceRequests } from './middleware/trace-requests.ts';
import { openApiDocument } from './openapi/document.ts';
import { mountRoutes } from './openapi/route-kit.ts';
import { ApiError, problemResponse } from './problem.ts';
import { routeGroupOf } from './route-bases.ts';
import { ROUTE_TABLE } from './route-table.ts';
import { consoleRoutes } from './routes/console.ts';
import { docsRoutes } from './routes/docs.ts';

const ONE_MIB = 1024 * 1024;
// files_upload carries up to 5 MB decoded, which is ~6.7 MB of base64 plus the envelope.
const EXECUTE_LIMIT = 7 * ONE_MIB;

export function buildApp(deps: ApiDeps): Hono<ApiEnv> {
  // The router is chosen, not left to hono's SmartRouter, which tries RegExpRouter on the first request and falls
  // back to TrieRouter when that refuses the routes (https://hono.dev/docs/concepts/routers). RegExpRouter refuses
  // a literal segment beside a parameter for the same method, and the connectors' public paths have both: POST
  // /oauth/initiate beside POST /:connector_id/execute, GET /oauth/callback (the redirect URI registered with
  // providers) beside GET /:connector_id. TrieRouter's match costs a little more (docs/benchmarks/code-measurements.md).
  const app = new Hono<ApiEnv>({ router: new TrieRouter() });
  const baseUrl = publicBaseUrl(deps.env);
  // Only when traces are exported (OTEL_EXPORTER_OTLP_ENDPOINT): otherwise no span, not even a no-op one, per request.
  if (deps.env.OTEL_EXPORTER_OTLP_ENDPOINT) app.use('*', traceRequests());
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

  app.use('/api/*', bodySize({ maxBytes: (path) => (path.endsWith('/execute') ? EXECUTE_LIMIT : ONE_MIB) }));

  app.route('/', consoleRoutes());

  // The API calls MCP tools make carry this process's mark, so the trail says they came through MCP.
  const mcpMark = randomBytes(16).toString('base64url');
  // One of each for every bearer-token route group: the rate limit's leases are then shared by them all.
  const signedIn = authenticate(deps.tokens, deps.clientAccess);
  const limited = rateLimit({
    redis: deps.redis,
    prefix: deps.env.NAMESPACE,
    limit: deps.env.RATE_LIMIT_PER_MINUTE,
    windowSeconds: 60,
    onRefused: (path) => deps.metrics.requestsRefused.inc({ route: routeGroupOf(path), reason: 'rate_limited' }),
  });
  // Usage per organization and its quotas (docs/operations.md): after the rate limit, so a refused call is not counted.
  const metered = meterUsage({ usage: deps.usage, quotas: deps.quotas });
  for (const { base, access, sets } of ROUTE_TABLE) {
    const group = new Hono<ApiEnv>();
    if (access.kind === 'bearer') {
      group.use('*', signedIn);
      group.use('*', limited);
      group.use('*', metered);
      if (access.auditActions) {
        group.use('*', auditTrail({ audit: deps.audit, actionOf: access.auditActions, mcpMark }));
      }
    }
    for (const set of sets) mountRoutes(group, set, deps);
    app.route(base || '/', group);
  }

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
    bodySize({ maxBytes: () => ONE_MIB }),
    mcpMessage(),
    auditMcpToolCalls({ audit: deps.audit }),
  );
  app.all('/mcp', (c) => mcp(c.req.raw));

  // The document of the route table mounted above, generated once, on first request.
  let document: string | undefined;
  app.get('/openapi.json', (c) => {
    document ??= JSON.stringify(openApiDocument());
    return c.body(document, 200, { 'content-type': 'application/json' });
  });
  app.route('/', docsRoutes());
  return app;
}
