import { upstreamOverrides } from '@conduit/config';
import { exitOnStartupFailure, startProcess } from '@conduit/observability';
import { startTracing } from '@conduit/tracing';
import { serve } from '@hono/node-server';
import { buildApp } from './app.ts';
import { createApiRuntime } from './runtime.ts';

const { env, logger } = startProcess('api');
// Before anything runs: spans exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set, no SDK at all otherwise.
const tracing = await startTracing(env.OTEL_EXPORTER_OTLP_ENDPOINT, 'conduit-api');
const runtime = await createApiRuntime(env, upstreamOverrides(), { logger, envSource: process.env }).catch(
  (error: unknown) => exitOnStartupFailure('api', error),
);
runtime.deps.metrics.collectProcessMetrics();
const app = buildApp(runtime.deps);
const server = serve({ fetch: app.fetch, port: env.PORT, hostname: '0.0.0.0' }, (info) =>
  logger.info('api listening', { port: info.port }),
);

// Graceful shutdown: stop accepting, let in-flight requests finish, then release connections.
let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info('api stopping', { signal });
  const force = setTimeout(() => process.exit(1), 15_000);
  force.unref();
  server.close(async () => {
    await runtime.close();
    await tracing?.close();
    process.exit(0);
  });
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
