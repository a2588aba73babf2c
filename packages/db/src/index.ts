export { createDatabase, ensureDatabaseExists } from './database.ts';
export { migrateToLatest } from './migrate.ts';
export { AuditEntriesRepository, type AuditQuery } from './repositories/audit-entries.ts';
export {
  type AppliedRecordChange,
  type ChangeEventRow,
  ChangeFeedRepository,
  type ChangeType,
  type FeedHead,
} from './repositories/change-feed.ts';
export { type ClientAccess, ClientsRepository, type ClientWithOrganizations } from './repositories/clients.ts';
export { ConnectorsRepository } from './repositories/connectors.ts';
export {
  type IdempotencyClaim,
  IdempotencyKeysRepository,
  type IdempotencyRef,
} from './repositories/idempotency-keys.ts';
export { type RunRef, type RunWrite, SyncStatesRepository } from './repositories/sync-states.ts';
export {
  type ClaimedDelivery,
  type DeliveryAttempt,
  type DeliveryAttemptOutcome,
  type NewWebhookEndpoint,
  type WebhookDeliveryRow,
  type WebhookEndpointChanges,
  type WebhookEndpointRow,
  WebhookEndpointsRepository,
} from './repositories/webhook-endpoints.ts';
export {
  type AuditEntryRow,
  type ConnectorRow,
  type Database,
  type NewAuditEntry,
  type NewConnectorRow,
  SYNC_STATUSES,
  type SyncStateRow,
  type SyncStatus,
} from './schema.ts';
