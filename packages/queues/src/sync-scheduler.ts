import { currentTraceparent } from '@conduit/tracing';
import type { Queue } from 'bullmq';
import {
  connectorSchedulerId,
  entityJobId,
  JOB_NAMES,
  retryingQueue,
  type SyncConnectorJob,
  type SyncEntityJob,
} from './queues.ts';
import type { RedisClient } from './redis-connection.ts';

/** The producer side of sync: what the API (and the worker's fan-out) puts on the queue. */
export class SyncScheduler {
  readonly queue: Queue;

  constructor(connection: RedisClient, queueName: string) {
    this.queue = retryingQueue(connection, queueName, { attempts: 5, firstDelayMs: 5_000 });
  }

  /** Syncs every searchable entity of a connector now (fanned out by the worker). */
  async syncConnector(connectorId: string): Promise<void> {
    const traceparent = currentTraceparent();
    const data: SyncConnectorJob = { connectorId, ...(traceparent ? { traceparent } : {}) };
    await this.queue.add(JOB_NAMES.connector, data, { removeOnComplete: true, removeOnFail: true });
  }

  /**
   * One run at a time per connector and entity: the job id dedupes while a run is queued or active.
   * Finished jobs are removed, so the next trigger can add the id again.
   */
  async syncEntity(connectorId: string, entity: string, options: { mode?: 'incremental' } = {}): Promise<void> {
    const traceparent = currentTraceparent();
    const data: SyncEntityJob = {
      connectorId,
      entity,
      ...(options.mode ? { mode: options.mode } : {}),
      ...(traceparent ? { traceparent } : {}),
    };
    await this.queue.add(JOB_NAMES.entity, data, {
      jobId: entityJobId(connectorId, entity),
      removeOnComplete: true,
      removeOnFail: true,
    });
  }

  async schedule(connectorId: string, everyMs: number): Promise<void> {
    const data: SyncConnectorJob = { connectorId };
    await this.queue.upsertJobScheduler(
      connectorSchedulerId(connectorId),
      // The first scheduled run comes one interval after creation: creation already queued the first sync.
      { every: everyMs, startDate: Date.now() + everyMs },
      { name: JOB_NAMES.connector, data, opts: { removeOnComplete: true, removeOnFail: true } },
    );
  }

  /**
   * Re-creates the schedules Redis lost, or whose interval changed, or whose next run is overdue by a whole
   * interval (its next job is gone); the others are left alone. Re-upserting a healthy schedule is idempotent but
   * replaces its waiting job, which at thousands of connectors a minute is most of the scheduler's work.
   * Answers how many it (re-)created.
   */
  async ensureSchedules(connectorIds: readonly string[], everyMs: number): Promise<number> {
    const healthy = new Set<string>();
    const overdue = Date.now() - everyMs;
    for (const scheduler of await this.queue.getJobSchedulers()) {
      if (scheduler.every === everyMs && (scheduler.next ?? 0) >= overdue) healthy.add(scheduler.key);
    }
    let created = 0;
    for (const id of connectorIds) {
      if (healthy.has(connectorSchedulerId(id))) continue;
      await this.schedule(id, everyMs);
      created++;
    }
    return created;
  }

  async unschedule(connectorId: string): Promise<void> {
    await this.queue.removeJobScheduler(connectorSchedulerId(connectorId));
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
