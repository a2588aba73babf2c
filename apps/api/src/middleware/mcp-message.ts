import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../deps.ts';
import { ApiError } from '../problem.ts';
import { assertJsonDepth } from '../request-body.ts';

/**
 * Reads the JSON-RPC message of a POST /mcp once, for the steps after it (the audit trail) and before the MCP
 * server sees it: JSON nested deeper than MAX_JSON_DEPTH is refused with 400 `invalid_request` (the server's
 * validation would overflow the stack on it), and so is a JSON-RPC batch (an array), which MCP dropped from the
 * Streamable HTTP transport (https://modelcontextprotocol.io/specification/2025-06-18/changelog): one message per
 * request is what gets each tool call its own audit entry. Malformed JSON is left to the MCP server's own
 * parse error.
 */
export function mcpMessage(): MiddlewareHandler<ApiEnv> {
  return async function mcpMessageMiddleware(c, next) {
    if (c.req.method !== 'POST') return next();
    // A clone: the MCP server reads the request's own body after this.
    const text = await c.req.raw.clone().text();
    assertJsonDepth(text);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return next();
    }
    if (Array.isArray(message)) {
      throw new ApiError(400, 'invalid_request', 'JSON-RPC batches are not accepted: send one message per request', {
        errors: [{ path: '', message: 'an array (a JSON-RPC batch); send each message on its own' }],
      });
    }
    c.set('mcpMessage', message);
    return next();
  };
}
