import { duplicateRedis, JOB_NAMES, queuePrefix, RedisSemaphore, syncQueueName } from '@conduit/queues';
import { continueTrace } from '@conduit/tracing';
import { Worker } from 'bullmq';
import { startCustomerDeliveries } from './customer-deliveries.ts';
import type { SyncDeps } from './deps.ts';
import { processSyncConnector } from './processors/sync-connector.ts';
import { processSyncEntity } from './processors/sync-entity.ts';
import { startReconciler } from './reconcile.ts';
import { connectorIdOf, traceparentOf } from './traced-jobs.ts';

export interface SyncWorker {
  readonly worker: Worker;
  /** Graceful: the run in flight checkpoints its page and is re-queued; then the worker's connection closes. */
  close(): Promise<void>;
}

/** A slot of a worker that died (no heartbeat for this long) is free again. */
const SLOT_STALE_MS = 120_000;

/**
 * The BullMQ worker of the sync queue: connector jobs fan out, entity jobs run under a per-connector slot;
 * a reconciler re-creates schedules and re-queues interrupted runs from Postgres.
 */
export function startSyncWorker(deps: SyncDeps): SyncWorker {
  const { env, logger, redis } = deps;
  const slots = {
    connector: new RedisSemaphore(redis, {
      prefix: `${env.NAMESPACE}:slots`,
      limit: env.CONNECTOR_CONCURRENCY,
      staleMs: SLOT_STALE_MS,
    }),
    // Unset: all but one of a worker's slots, so another organization always finds one.
    organization: new RedisSemaphore(redis, {
      prefix: `${env.NAMESPACE}:organization:slots`,
      limit: env.ORGANIZATION_SYNC_CONCURRENCY ?? Math.max(1, env.WORKER_CONCURRENCY - 1),
      staleMs: SLOT_STALE_MS,
    }),
  };
  let stopping = false;
  const workerConnection = duplicateRedis(redis);
  workerConnection.on('error', (error: Error) => logger.warn('redis connection error', { error: error.message }));
  const worker = new Worker(
    syncQueueName(env.NAMESPACE),
    async (job, token) => {
      const traced = <T>(work: () => Promise<T>) =>
        continueTrace(traceparentOf(job.data), job.name, { 'conduit.connector_id': connectorIdOf(job.data) }, work);
      if (job.name === JOB_NAMES.connector) return traced(() => processSyncConnector(job.data, deps));
      if (job.name === JOB_NAMES.entity)
        return traced(() => processSyncEntity(job, token, deps, slots, () => stopping));
      throw new Error(`unknown job ${job.name}`);
    },
    {
      connection: workerConnection,
      prefix: queuePrefix(syncQueueName(env.NAMESPACE)),
      concurrency: env.WORKER_CONCURRENCY,
      lockDuration: env.WORKER_LOCK_MS,
      stalledInterval: env.WORKER_LOCK_MS,
      // A worker killed mid-run leaves its job stalled; it resumes from the checkpoint, however often that happens.
      maxStalledCount: 100,
    },
  );
  worker.on('error', (error) => logger.error('worker error', { error }));
  const stopReconciler = startReconciler(deps);
  const stopDeliveries = startCustomerDeliveries(deps);
  logger.info('worker started', { queue: syncQueueName(env.NAMESPACE), concurrency: env.WORKER_CONCURRENCY });
  return {
    worker,
    async close() {
      stopping = true;
      stopReconciler();
      await stopDeliveries();
      await worker.close();
      workerConnection.disconnect();
    },
  };
}
