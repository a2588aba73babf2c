export { EMBED_JOB_NAME, EMBED_JOB_TEXTS, EmbedTextsJob, embedQueueName } from './embed-queue.ts';
export {
  connectorChangesChannel,
  connectorSchedulerId,
  JOB_NAMES,
  queuePrefix,
  retryingQueue,
  SyncConnectorJob,
  SyncEntityJob,
  syncQueueName,
} from './queues.ts';
export { connectRedis, duplicateRedis, type RedisClient } from './redis-connection.ts';
export { RedisSemaphore } from './redis-semaphore.ts';
export { SyncScheduler } from './sync-scheduler.ts';
export { WEBHOOK_JOB_NAME, WebhookEventJob, WebhookQueue, webhookQueueName } from './webhook-queue.ts';
