export { DEFAULT_BUDGET_CHARS } from './budget.ts';
export { type McpHttpOptions, mcpHttpHandler } from './http.ts';
export { executeToolSchema, searchToolSchema } from './json-schemas.ts';
export { type ConduitMcpOptions, createConduitMcpServer } from './server.ts';
export { type ToolDefinition, type ToolOptions, toolDefinitions, toolsFor } from './tools.ts';
