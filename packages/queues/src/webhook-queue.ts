import { createHash } from 'node:crypto';
import type { ParsedWebhook } from '@conduit/connectors';
import { currentTraceparent } from '@conduit/tracing';
import type { Queue } from 'bullmq';
import { z } from 'zod';
import { retryingQueue } from './queues.ts';
import type { RedisClient } from './redis-connection.ts';

/** Job payload: ids and record references only, never a body or a secret. */
export const WebhookEventJob = z.object({
  connectorId: z.string().min(1),
  eventId: z.string().min(1),
  type: z.string(),
  receivedAt: z.number(),
  records: z
    .array(
      z.object({
        entity: z.string().min(1),
        key: z.string().min(1),
        params: z.record(z.string(), z.unknown()),
        via: z.enum(['get', 'list']),
      }),
    )
    .min(1),
  /** W3C trace context of the request that accepted the event: the worker's re-read continues its trace. */
  traceparent: z.string().max(128).optional(),
});
export type WebhookEventJob = z.infer<typeof WebhookEventJob>;

export const WEBHOOK_JOB_NAME = 'webhook-event';

/** Vendors redeliver for hours (Svix, incident.io: 24 h); an event id seen within this window is a duplicate. */
export const WEBHOOK_DEDUP_MS = 24 * 60 * 60 * 1000;

export function webhookQueueName(namespace: string): string {
  return `${namespace}-webhooks`;
}

/**
 * The producer side of webhooks: one job per accepted event, deduplicated by (connector, event id). Its own queue,
 * so webhook re-reads never wait behind long sync runs.
 */
export class WebhookQueue {
  readonly queue: Queue;
  readonly #redis: RedisClient;
  readonly #prefix: string;

  constructor(connection: RedisClient, namespace: string) {
    this.#redis = connection;
    this.#prefix = `${namespace}:webhook-seen`;
    this.queue = retryingQueue(connection, webhookQueueName(namespace), { attempts: 6, firstDelayMs: 1_000 });
  }

  /** `duplicate`: this event id was already accepted for the connector (within WEBHOOK_DEDUP_MS). */
  async enqueue(connectorId: string, event: ParsedWebhook, receivedAt: number): Promise<'queued' | 'duplicate'> {
    const digest = createHash('sha256').update(connectorId).update('\0').update(event.eventId).digest('base64url');
    const seenKey = `${this.#prefix}:${digest}`;
    // SET NX is the dedup: atomic across API instances, and it outlives the job (BullMQ drops finished jobs).
    const first = await this.#redis.set(seenKey, '1', 'PX', WEBHOOK_DEDUP_MS, 'NX');
    if (first === null) return 'duplicate';
    const data: WebhookEventJob = {
      connectorId,
      eventId: event.eventId,
      type: event.type,
      receivedAt,
      records: event.records.map((r) => ({ ...r })),
    };
    const traceparent = currentTraceparent();
    if (traceparent) data.traceparent = traceparent;
    try {
      await this.queue.add(WEBHOOK_JOB_NAME, data, { jobId: `wh-${digest}` });
    } catch (error) {
      // Not queued, so not seen: the vendor's redelivery must be accepted.
      await this.#redis.del(seenKey).catch(() => undefined);
      throw error;
    }
    return 'queued';
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
