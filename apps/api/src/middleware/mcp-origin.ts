import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../deps.ts';
import { ApiError } from '../problem.ts';

export interface McpOriginOptions {
  /** Origins allowed besides the API's own (MCP_ALLOWED_ORIGINS), e.g. `https://agent.example.com`. */
  readonly allowed: readonly string[];
  /** The API's public base URL: its origin is always allowed. */
  readonly publicBaseUrl: string;
}

/** Parses MCP_ALLOWED_ORIGINS (comma-separated origins); a value that is not an origin fails at start-up. */
export function parseAllowedOrigins(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const origin = new URL(part).origin;
      if (origin === 'null' || origin !== part.replace(/\/$/, '')) {
        throw new Error(`MCP_ALLOWED_ORIGINS: '${part}' is not an origin (scheme://host[:port])`);
      }
      return origin;
    });
}

/**
 * The MCP transport's Origin check (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#security-warning):
 * a browser page of another site must not drive the server (DNS rebinding). A present Origin that is not the API's
 * own nor listed is refused with 403; a request without one (an agent, curl) is not a browser's and goes on to
 * the bearer-token check.
 */
export function mcpOrigin({ allowed, publicBaseUrl }: McpOriginOptions): MiddlewareHandler<ApiEnv> {
  const origins = new Set([new URL(publicBaseUrl).origin, ...allowed]);
  return async function mcpOriginMiddleware(c, next) {
    const origin = c.req.header('origin');
    if (origin !== undefined && !origins.has(origin)) {
      throw new ApiError(403, 'forbidden', 'this origin may not use the MCP server', {
        errors: [{ path: '/headers/origin', message: 'not the API origin nor one of MCP_ALLOWED_ORIGINS' }],
      });
    }
    await next();
  };
}
