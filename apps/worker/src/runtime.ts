import {
  connectPlatformServices,
  createLogger,
  type Logger,
  type PlatformEnv,
  type UpstreamOverrides,
} from '@conduit/platform';
import { type SyncDeps, startSyncWorker, startWebhookWorker } from '@conduit/sync';
import type { Worker } from 'bullmq';
import { type MetricsServer, startMetricsServer } from './metrics-server.ts';
import { startRetention } from './retention.ts';

export interface WorkerRuntime {
  readonly deps: SyncDeps;
  readonly worker: Worker;
  /** GET /metrics on WORKER_METRICS_PORT. */
  readonly metricsServer: MetricsServer;
  /** Graceful: the run in flight checkpoints its page and is re-queued; then connections close. */
  close(): Promise<void>;
}

/** Connects the platform services from the configuration and starts the sync engine's worker on them. */
export async function createWorkerRuntime(
  env: PlatformEnv,
  overrides: UpstreamOverrides,
  options: { logger?: Logger } = {},
): Promise<WorkerRuntime> {
  const logger = options.logger ?? createLogger({ level: env.LOG_LEVEL, base: { service: 'worker' } });
  const services = await connectPlatformServices(env, overrides, logger, 'worker');
  const deps: SyncDeps = {
    env,
    logger,
    connectors: services.connectors,
    syncStates: services.syncStates,
    changeFeed: services.changeFeed,
    webhookEndpoints: services.webhookEndpoints,
    cipher: services.cipher,
    hosted: services.hosted,
    indexStore: services.indexStore,
    scheduler: services.scheduler,
    redis: services.redis,
    metrics: services.metrics,
  };
  const sync = startSyncWorker(deps);
  const metricsServer = await startMetricsServer(services.metrics, {
    port: env.WORKER_METRICS_PORT,
    host: env.WORKER_METRICS_HOST,
    token: env.METRICS_TOKEN,
    logger,
  });
  const webhooks = startWebhookWorker(deps);
  const stopRetention = startRetention({
    env,
    logger,
    auditEntries: services.auditEntries,
    idempotencyKeys: services.idempotencyKeys,
  });
  return {
    deps,
    worker: sync.worker,
    metricsServer,
    async close() {
      stopRetention();
      await metricsServer.close();
      await webhooks.close();
      await sync.close();
      await services.close();
    },
  };
}
