import { Queue } from 'bullmq';
import { z } from 'zod';
import type { RedisClient } from './redis-connection.ts';

/** Job payloads carry ids only: never credentials (they are read from Postgres and decrypted in the worker). */
export const SyncConnectorJob = z.object({
  connectorId: z.string().min(1),
  traceparent: z.string().max(128).optional(),
});
export type SyncConnectorJob = z.infer<typeof SyncConnectorJob>;

export const SyncEntityJob = z.object({
  connectorId: z.string().min(1),
  entity: z.string().min(1),
  /** `incremental`: skip a periodic full pass that is due (a full pass is asked for in Postgres, not here). */
  mode: z.literal('incremental').optional(),
  /** W3C trace context of what asked for the run (a POST .../sync, the connector's fan-out): the run continues it. */
  traceparent: z.string().max(128).optional(),
});
export type SyncEntityJob = z.infer<typeof SyncEntityJob>;

export const JOB_NAMES = { connector: 'sync-connector', entity: 'sync-entity' } as const;

export function syncQueueName(namespace: string): string {
  return `${namespace}-sync`;
}

/** One run at a time per connector and entity: BullMQ ignores an add whose job id is already queued or running. */
export function entityJobId(connectorId: string, entity: string): string {
  return `entity:${connectorId}:${entity}`;
}

export function connectorSchedulerId(connectorId: string): string {
  return `schedule:${connectorId}`;
}

/**
 * BullMQ's key prefix of a queue: the queue name as a Redis Cluster hash tag, so every key of one queue (its Lua
 * scripts touch several) lands in one slot, and different queues spread over the cluster
 * (https://docs.bullmq.io/patterns/redis-cluster). Every Queue and Worker of that name must use it.
 */
export function queuePrefix(queueName: string): string {
  return `bull:{${queueName}}`;
}

/**
 * A producer's queue: failed jobs retry with exponential backoff, and the last 1000 finished jobs of each outcome
 * stay inspectable (jobs added with their own remove options override this).
 */
export function retryingQueue(
  connection: RedisClient,
  name: string,
  retry: { readonly attempts: number; readonly firstDelayMs: number },
): Queue {
  return new Queue(name, {
    connection,
    prefix: queuePrefix(name),
    defaultJobOptions: {
      attempts: retry.attempts,
      backoff: { type: 'exponential', delay: retry.firstDelayMs },
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 1000 },
    },
  });
}

/**
 * Redis pub/sub channel carrying a connector id whenever what the API remembers of it changed: its row (PATCH,
 * DELETE) or an entity's last completed pass (the worker, after a run is recorded). Every API instance forgets it.
 */
export function connectorChangesChannel(namespace: string): string {
  return `${namespace}:connectors:changed`;
}
