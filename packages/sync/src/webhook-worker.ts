import { duplicateRedis, queuePrefix, WEBHOOK_JOB_NAME, webhookQueueName } from '@conduit/queues';
import { continueTrace } from '@conduit/tracing';
import { Worker } from 'bullmq';
import type { SyncDeps } from './deps.ts';
import { GroupedIndexWrites } from './grouped-index-writes.ts';
import { LiveConnectors, OrganizationShares, processWebhookEvent } from './processors/webhook-event.ts';
import { connectorIdOf, traceparentOf } from './traced-jobs.ts';

export interface WebhookWorker {
  readonly worker: Worker;
  close(): Promise<void>;
}

/**
 * The BullMQ worker of the webhooks queue: short jobs (one upstream get per record; the index writes of jobs
 * running together go out as one bulk request), many at once (WEBHOOK_CONCURRENCY), on their own queue so they
 * never wait behind sync runs.
 */
export function startWebhookWorker(deps: SyncDeps): WebhookWorker {
  const { env, logger, redis } = deps;
  const connection = duplicateRedis(redis);
  const writes = new GroupedIndexWrites(deps);
  const writeRecord = writes.write.bind(writes);
  // Half of the worker's slots at most for one organization, so another organization always finds some.
  const shares = new OrganizationShares(Math.max(1, Math.floor(env.WEBHOOK_CONCURRENCY / 2)));
  const processing = { live: new LiveConnectors(), writeRecord, shares };
  connection.on('error', (error: Error) => logger.warn('redis connection error', { error: error.message }));
  const worker = new Worker(
    webhookQueueName(env.NAMESPACE),
    async (job, token) => {
      if (job.name === WEBHOOK_JOB_NAME) {
        // The re-read continues the trace of the request that accepted the event (its traceparent in the job).
        return continueTrace(
          traceparentOf(job.data),
          job.name,
          { 'conduit.connector_id': connectorIdOf(job.data) },
          () => processWebhookEvent(job, token, deps, processing),
        );
      }
      throw new Error(`unknown job ${job.name}`);
    },
    { connection, prefix: queuePrefix(webhookQueueName(env.NAMESPACE)), concurrency: env.WEBHOOK_CONCURRENCY },
  );
  worker.on('error', (error) => logger.error('webhook worker error', { error }));
  return {
    worker,
    async close() {
      await worker.close();
      connection.disconnect();
    },
  };
}
