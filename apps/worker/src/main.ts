import { upstreamOverrides } from '@conduit/config';
import { exitOnStartupFailure, startProcess } from '@conduit/observability';
import { startTracing } from '@conduit/tracing';
import { createWorkerRuntime } from './runtime.ts';

const { env, logger } = startProcess('worker');
// Before anything runs: spans exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set, no SDK at all otherwise.
const tracing = await startTracing(env.OTEL_EXPORTER_OTLP_ENDPOINT, 'conduit-worker');

// Signals are handled from the first moment: a SIGTERM during start-up still ends in a clean shutdown.
let stopping = false;
// A worker that cannot start says why on stderr (the launcher repeats it) instead of dying silently.
const runtimePromise = createWorkerRuntime(env, upstreamOverrides(), { logger }).catch((error: unknown) =>
  exitOnStartupFailure('worker', error),
);
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info('worker stopping', { signal });
  const force = setTimeout(() => process.exit(1), 30_000);
  force.unref();
  const runtime = await runtimePromise;
  await runtime.close();
  await tracing?.close();
  logger.info('worker stopped');
  process.exit(0);
};
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
(await runtimePromise).deps.metrics.collectProcessMetrics();
