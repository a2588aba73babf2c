import { Conduit, type ConduitOptions } from '@conduit/client';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { callTool, type ToolOptions, toolsFor } from './tools.ts';

export interface ConduitMcpOptions extends ToolOptions {
  /** The API the tools call: a Conduit client, or what to build one from. */
  conduit: Conduit | ConduitOptions;
}

const INSTRUCTIONS =
  'Conduit connects external systems (billing, payments, forms, error monitoring, ads, incidents, files, ...). ' +
  "list_connectors shows the connectors you may use; describe_connector shows a connector's entities, actions, " +
  'parameters and searchable fields; <kind>_execute runs a live action upstream; <kind>_search queries the ' +
  'synchronized copy. Errors name the field to fix.';

/**
 * An MCP server over the Conduit API. Tools are derived from the connector catalog; every call goes through the
 * public API with the caller's own token, so authorization, validation and errors are the API's.
 *
 * @example
 * ```ts
 * const server = createConduitMcpServer({ conduit: { baseUrl, clientId, clientSecret } });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createConduitMcpServer(options: ConduitMcpOptions): Server {
  const conduit = options.conduit instanceof Conduit ? options.conduit : new Conduit(options.conduit);
  const server = new Server(
    { name: 'conduit', title: 'Conduit', version: '1.0.0' },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await toolsFor(conduit) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    callTool(conduit, request.params.name, request.params.arguments ?? {}, options),
  );
  return server;
}
