import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ApiEnv } from '../deps.ts';
import { ApiError } from '../problem.ts';

export interface BodySizeOptions {
  /** The largest body a request to `path` may send, in bytes. */
  readonly maxBytes: (path: string) => number;
}

/**
 * Refuses a request body over its limit with 413 `payload_too_large` before any handler reads it. Node's parser
 * never delivers more than Content-Length bytes (https://nodejs.org/api/http.html#messagecomplete), so a declared
 * length is checked as a number: hono's bodyLimit (https://hono.dev/docs/middleware/builtin/body-limit) would first
 * turn the request into a web Request with a body stream. A request with neither Content-Length nor
 * Transfer-Encoding has no body; a chunked body is counted by bodyLimit as it arrives.
 *
 * @example app.use('/api/*', bodySize({ maxBytes: (path) => (path.endsWith('/execute') ? 7 * MIB : MIB) }))
 */
export function bodySize({ maxBytes }: BodySizeOptions): MiddlewareHandler<ApiEnv> {
  const tooLarge = (): never => {
    throw new ApiError(413, 'payload_too_large', 'the request body is too large');
  };
  return async function bodySizeMiddleware(c, next) {
    const limit = maxBytes(c.req.path);
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
  };
}
