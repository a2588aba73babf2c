#!/usr/bin/env node
/**
 * The Conduit MCP server over stdio, for local agents:
 *   CONDUIT_URL=http://localhost:8080 CONDUIT_CLIENT_ID=… CONDUIT_CLIENT_SECRET=… node packages/mcp/src/stdio.ts
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createConduitMcpServer } from './server.ts';

const env = process.env;
const missing = ['CONDUIT_URL', 'CONDUIT_CLIENT_ID', 'CONDUIT_CLIENT_SECRET'].filter((k) => !env[k]);
if (missing.length) {
  console.error(`set ${missing.join(', ')}`);
  process.exit(2);
}
const server = createConduitMcpServer({
  conduit: {
    baseUrl: env.CONDUIT_URL!,
    clientId: env.CONDUIT_CLIENT_ID!,
    clientSecret: env.CONDUIT_CLIENT_SECRET!,
    ...(env.CONDUIT_ORGANIZATION_ID ? { organizationId: env.CONDUIT_ORGANIZATION_ID } : {}),
  },
  ...(env.CONDUIT_MCP_BUDGET_CHARS ? { budgetChars: Number(env.CONDUIT_MCP_BUDGET_CHARS) } : {}),
});
await server.connect(new StdioServerTransport());
