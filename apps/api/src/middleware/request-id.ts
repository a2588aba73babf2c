import { randomUUID } from 'node:crypto';
import type { Logger } from '@conduit/observability';
import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../deps.ts';
import { withAnswerHeaders } from './answer-headers.ts';

const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Every response carries X-Request-Id (the caller's, if well-formed) and every log line of the request has it.
 * The request's own line is written once the rest of the chain answered.
 */
export function requestId(logger: Logger): MiddlewareHandler<ApiEnv> {
  return async function requestIdMiddleware(c, next) {
    const incoming = c.req.header('x-request-id');
    const id = incoming && VALID_ID.test(incoming) ? incoming : randomUUID();
    c.set('requestId', id);
    c.set('logger', logger.child({ request_id: id }));
    const started = performance.now();
    await withAnswerHeaders(c, next, { 'x-request-id': id });
    const line = {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round(performance.now() - started),
    };
    c.get('logger').info('request', line);
  };
}
