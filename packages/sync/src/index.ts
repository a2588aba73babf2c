export type { SyncDeps } from './deps.ts';
export { startEmbedWorker } from './embed-worker.ts';
export { changesPurges, purgeExpired, startRetention } from './retention.ts';
export { runEntitySync } from './sync-run.ts';
export { startSyncWorker } from './sync-worker.ts';
export { startWebhookWorker } from './webhook-worker.ts';
