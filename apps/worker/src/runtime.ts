import { intervalMs, type PlatformEnv } from '@conduit/config';
import { createEmbedder, type Embedder } from '@conduit/embeddings';
import type { UpstreamOverrides } from '@conduit/hosted-connectors';
import { createLogger, type Logger } from '@conduit/observability';
import { connectPlatformServices } from '@conduit/platform';
import {
  changesPurges,
  type SyncDeps,
  startEmbedWorker,
  startRetention,
  startSyncWorker,
  startWebhookWorker,
} from '@conduit/sync';
import type { Worker } from 'bullmq';
import { type MetricsServer, startMetricsServer } from './metrics-server.ts';

const USAGE_RETENTION_MS = 400 * 24 * 3_600_000;

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
    indexes: services.indexes,
    copy: services.copy,
    scheduler: services.scheduler,
    redis: services.redis,
    metrics: services.metrics,
    usage: services.usage,
    quotas: services.quotas,
  };
  const sync = startSyncWorker(deps);
  const metricsServer = await startMetricsServer(services.metrics, {
    port: env.WORKER_METRICS_PORT,
    host: env.WORKER_METRICS_HOST,
    token: env.METRICS_TOKEN,
    logger,
  });
  const webhooks = startWebhookWorker(deps);
  // The model loads on the first embedding job, once per process.
  let model: Promise<Embedder> | undefined;
  const embeddings = startEmbedWorker({
    namespace: env.NAMESPACE,
    logger,
    redis: services.redis,
    copy: services.copy,
    textEmbeddings: services.textEmbeddings,
    model: services.embeddingModel.name,
    embedder: () => {
      model ??= createEmbedder({ modelDir: services.embeddingModel.dir }).catch((error: unknown) => {
        model = undefined;
        throw error;
      });
      return model;
    },
  });
  const stopRetention = startRetention(deps, [
    ...changesPurges(deps),
    // Audit entries older than AUDIT_RETENTION leave only through the database's audit_purge (the trail is
    // append-only); idempotency keys expire after 24 h.
    { name: 'audit_entries', run: () => services.auditEntries.purge(intervalMs(env.AUDIT_RETENTION)) },
    { name: 'idempotency_keys', run: () => services.idempotencyKeys.purgeExpired() },
    // Usage is kept for a year and a month: a year's bills can be compared month by month (docs/operations.md).
    { name: 'usage_hours', run: (now) => services.usageRows.purgeBefore(new Date(now - USAGE_RETENTION_MS)) },
    // Last, after the deletes: their space reused, and statistics for the planner, when autovacuum does not run.
    { name: 'vacuumed_tables', run: () => services.maintenance.vacuumUnattended() },
  ]);
  return {
    deps,
    worker: sync.worker,
    metricsServer,
    async close() {
      stopRetention();
      await metricsServer.close();
      await webhooks.close();
      await embeddings.close();
      await (await model?.catch(() => undefined))?.close();
      await sync.close();
      await services.close();
    },
  };
}
