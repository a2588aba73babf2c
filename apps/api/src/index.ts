export { buildApp } from './app.ts';
export type { ApiDeps } from './deps.ts';
export { rateLimit } from './middleware/rate-limit.ts';
export { documentedOperations, openApiDocument } from './openapi/index.ts';
export { type ApiRuntime, createApiRuntime } from './runtime.ts';
export { REFUSED_WEBHOOKS_PER_MINUTE } from './services/refused-webhooks.ts';
