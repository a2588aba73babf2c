import type { FetchLike } from '@conduit/client';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createConduitMcpServer } from './server.ts';
import type { ToolOptions } from './tools.ts';

export interface McpHttpOptions extends ToolOptions {
  /** How the tools reach the API: in the API itself, its own fetch (no network hop). */
  apiFetch: FetchLike;
  /** The API's origin as the tools address it (any origin works with an in-process fetch). */
  baseUrl?: string;
}

/**
 * `POST /mcp` (Streamable HTTP, stateless: one server per request, JSON answers). The caller's bearer token (and
 * X-Organization-Id) are passed on to every API call the tools make, so the MCP caller sees exactly what the same
 * token sees through the HTTP API. The API authenticates the request before it gets here.
 */
export function mcpHttpHandler(options: McpHttpOptions): (request: Request) => Promise<Response> {
  return async (request) => {
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
    const organizationId = request.headers.get('x-organization-id') ?? undefined;
    const server = createConduitMcpServer({
      ...options,
      conduit: {
        baseUrl: options.baseUrl ?? new URL(request.url).origin,
        accessToken: token,
        ...(organizationId ? { organizationId } : {}),
        // Every API call a tool makes for this request carries its signal: a caller that goes away stops them
        // (a SQL query's engine searches among them, docs/sql.md).
        fetch: (inner) =>
          options.apiFetch(new Request(inner, { signal: AbortSignal.any([inner.signal, request.signal]) })),
      },
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      // Stateless: the answer is complete (JSON, not a stream) once handleRequest resolves.
      await server.close();
    }
  };
}
