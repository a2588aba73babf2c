import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../deps.ts';
import { withAnswerHeaders } from './answer-headers.ts';

export interface SecurityHeadersOptions {
  /** The API's public base URL: HSTS is sent only when it is https (a plain-http deployment would lock itself out). */
  readonly publicBaseUrl: string;
}

/**
 * Headers on every answer, errors, documents and downloads included: `nosniff` (a download keeps its upstream
 * Content-Type and must not be sniffed into HTML), frame protection both ways (X-Frame-Options for old browsers,
 * CSP frame-ancestors for new ones), no Referer, and HSTS behind https. The same choices as hono's secureHeaders
 * (https://hono.dev/docs/middleware/builtin/secure-headers). A route with its own Content-Security-Policy (the
 * console) keeps it.
 *
 * @example app.use('*', securityHeaders({ publicBaseUrl: 'https://api.example.com' }))
 */
export function securityHeaders({ publicBaseUrl }: SecurityHeadersOptions): MiddlewareHandler<ApiEnv> {
  const headers: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'content-security-policy': "frame-ancestors 'none'",
    'referrer-policy': 'no-referrer',
  };
  if (new URL(publicBaseUrl).protocol === 'https:') {
    // One year, the minimum for browsers' preload lists (https://hstspreload.org/#deployment-recommendations).
    headers['strict-transport-security'] = 'max-age=31536000; includeSubDomains';
  }
  return function securityHeadersMiddleware(c, next) {
    return withAnswerHeaders(c, next, headers);
  };
}
