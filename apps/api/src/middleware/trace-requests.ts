import { continueTrace, SpanKind, spanAttributes } from '@conduit/tracing';
import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../deps.ts';

// An id in a path (a connector's, an endpoint's) becomes `{id}` in the span's name: names stay few.
const ID_SEGMENT = /\/(connectors|webhook-endpoints)\/(?!oauth(?:\/|$))[^/]+/;

/**
 * One server span per request, continuing the caller's trace (W3C `traceparent`), named by method and route, with
 * the answer's status. Mount it first: everything the request does (engine, Postgres, Redis, upstream calls, jobs it
 * queues) is inside it. Without a started SDK the span is the API's no-op.
 *
 * @example
 * app.use('*', traceRequests());
 */
export function traceRequests(): MiddlewareHandler<ApiEnv> {
  return async function traceRequests(c, next) {
    const route = c.req.path.replace(ID_SEGMENT, '/$1/{id}');
    await continueTrace(
      c.req.header('traceparent'),
      `${c.req.method} ${route}`,
      { 'http.request.method': c.req.method, 'url.path': c.req.path },
      async () => {
        await next();
        spanAttributes({ 'http.response.status_code': c.res.status });
      },
      SpanKind.SERVER,
    );
  };
}
