import { TokenCache } from '@conduit/connectors';
import {
  ConnectorsRepository,
  createDatabase,
  ensureDatabaseExists,
  migrateToLatest,
  SyncStatesRepository,
} from '@conduit/db';
import {
  CredentialsCipher,
  createLogger,
  HostedConnectors,
  IndexStore,
  JOB_NAMES,
  type Logger,
  type PlatformEnv,
  SyncScheduler,
  syncQueueName,
  type UpstreamOverrides,
} from '@conduit/platform';
import { Client } from '@opensearch-project/opensearch';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { ConnectorSlots } from './connector-slots.ts';
import type { WorkerDeps } from './deps.ts';
import { processSyncConnector } from './processors/sync-connector.ts';
import { processSyncEntity } from './processors/sync-entity.ts';
import { startReconciler } from './reconcile.ts';

export interface WorkerRuntime {
  readonly deps: WorkerDeps;
  readonly worker: Worker;
  /** Graceful: the run in flight checkpoints its page and is re-queued; then connections close. */
  close(): Promise<void>;
}

export async function createWorkerRuntime(
  env: PlatformEnv,
  overrides: UpstreamOverrides,
  options: { logger?: Logger } = {},
): Promise<WorkerRuntime> {
  const logger = options.logger ?? createLogger({ level: env.LOG_LEVEL, base: { service: 'worker' } });
  await ensureDatabaseExists(env.DATABASE_URL);
  const db = createDatabase(env.DATABASE_URL);
  await migrateToLatest(db);
  const redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
  const opensearch = new Client({ node: env.OPENSEARCH_URL });
  const connectors = new ConnectorsRepository(db);
  const cipher = new CredentialsCipher(env.ENCRYPTION_KEY, env.ENCRYPTION_KEY_PREVIOUS.split(','));
  const deps: WorkerDeps = {
    env,
    logger,
    connectors,
    syncStates: new SyncStatesRepository(db),
    hosted: new HostedConnectors({ cipher, connectors, overrides, tokenCache: new TokenCache() }),
    indexStore: new IndexStore(opensearch, env.NAMESPACE),
    scheduler: new SyncScheduler(redis, syncQueueName(env.NAMESPACE)),
    redis,
  };
  const slots = new ConnectorSlots(redis, env.NAMESPACE, env.CONNECTOR_CONCURRENCY);
  let stopping = false;
  const worker = new Worker(
    syncQueueName(env.NAMESPACE),
    async (job, token) => {
      if (job.name === JOB_NAMES.connector) return processSyncConnector(job.data, deps);
      if (job.name === JOB_NAMES.entity) return processSyncEntity(job, token, deps, slots, () => stopping);
      throw new Error(`unknown job ${job.name}`);
    },
    {
      connection: redis.duplicate(),
      concurrency: env.WORKER_CONCURRENCY,
      lockDuration: env.WORKER_LOCK_MS,
      stalledInterval: env.WORKER_LOCK_MS,
      // A worker killed mid-run leaves its job stalled; it resumes from the checkpoint, however often that happens.
      maxStalledCount: 100,
    },
  );
  worker.on('error', (error) => logger.error('worker error', { error }));
  const stopReconciler = startReconciler(deps);
  logger.info('worker started', { queue: syncQueueName(env.NAMESPACE), concurrency: env.WORKER_CONCURRENCY });
  return {
    deps,
    worker,
    async close() {
      stopping = true;
      stopReconciler();
      await worker.close();
      await deps.scheduler.close();
      redis.disconnect();
      await opensearch.close();
      await db.destroy();
    },
  };
}
