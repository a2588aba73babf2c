export type { SyncDeps } from './deps.ts';
export { reconcile } from './reconcile.ts';
export { purgeExpired } from './retention.ts';
export { runEntitySync, type SyncRunControl, type SyncRunOutcome } from './sync-run.ts';
export { type SyncWorker, startSyncWorker } from './sync-worker.ts';
export { startWebhookWorker, type WebhookWorker } from './webhook-worker.ts';
