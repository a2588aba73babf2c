export { createDatabase, ensureDatabaseExists, type QueryObserver } from './database.ts';
export { migrateToLatest } from './migrate.ts';
export type {
  AppliedWrite,
  ChangeSource,
  ChangeTarget,
  WrittenChanges,
} from './repositories/applied-writes.ts';
export { AuditEntriesRepository, type AuditQuery } from './repositories/audit-entries.ts';
export { AUDIT_ENTRY_COLUMNS, AuditWriter } from './repositories/audit-writer.ts';
export {
  type ChangeEventRow,
  ChangeFeedRepository,
  type ChangeWithPrior,
  type OnAppended,
} from './repositories/change-feed.ts';
export { type ClientAccess, ClientsRepository } from './repositories/clients.ts';
export {
  type ActiveDefinition,
  ConnectorDefinitionsRepository,
  type DefinitionSummary,
} from './repositories/connector-definitions.ts';
export { ConnectorsRepository } from './repositories/connectors.ts';
export { IdempotencyKeysRepository, type IdempotencyRef } from './repositories/idempotency-keys.ts';
export { TableMaintenance } from './repositories/maintenance.ts';
export { type RunRef, type RunWrite, SyncStatesRepository } from './repositories/sync-states.ts';
export { type EmbeddingScope, TextEmbeddingsRepository } from './repositories/text-embeddings.ts';
export { type UsageBucketRow, type UsageIncrement, UsageRepository } from './repositories/usage.ts';
export {
  type ClaimedDelivery,
  type DeliveryAttempt,
  type MovedPair,
  type WebhookEndpointRow,
  WebhookEndpointsRepository,
} from './repositories/webhook-endpoints.ts';
export {
  type AuditEntryRow,
  type ConnectorRow,
  type Database,
  type NewAuditEntry,
  SYNC_STATUSES,
  type SyncStateRow,
} from './schema.ts';
