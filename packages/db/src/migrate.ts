import type { Kysely } from 'kysely';
import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';
import * as initial from './migrations/0001-initial.ts';
import * as runOwner from './migrations/0002-run-owner.ts';
import * as changeCapture from './migrations/0003-change-capture.ts';
import * as webhooks from './migrations/0004-webhooks.ts';
import * as changeFeed from './migrations/0005-change-feed.ts';
import * as webhookEndpoints from './migrations/0006-webhook-endpoints.ts';
import * as tokenGeneration from './migrations/0010-token-generation.ts';
import * as idempotencyKeys from './migrations/0015-idempotency-keys.ts';
import * as auditLog from './migrations/0016-audit-log.ts';
import * as auditOutcomes from './migrations/0020-audit-outcomes.ts';
import * as pendingDeliveries from './migrations/0021-pending-deliveries.ts';
import * as auditAtBrin from './migrations/0023-audit-at-brin.ts';
import * as changeEventRecordJson from './migrations/0024-change-event-record-json.ts';
import * as auditOrganizationKey from './migrations/0025-audit-organization-key.ts';
import * as auditSpoolOffsets from './migrations/0026-audit-spool-offsets.ts';
import * as deliveriesByStatus from './migrations/0027-deliveries-by-status.ts';
import * as fairDeliveries from './migrations/0028-fair-deliveries.ts';
import * as connectorDefinitions from './migrations/0034-connector-definitions.ts';
import * as usageAndQuotas from './migrations/0035-usage-and-quotas.ts';
import * as textEmbeddings from './migrations/0037-text-embeddings.ts';
import * as changeEventPrior from './migrations/0040-change-event-prior.ts';
import type { Database } from './schema.ts';

/** Ordered, never edited once landed: add a new file and a line here. */
const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-run-owner': runOwner,
  '0003-change-capture': changeCapture,
  '0004-webhooks': webhooks,
  '0005-change-feed': changeFeed,
  '0006-webhook-endpoints': webhookEndpoints,
  '0010-token-generation': tokenGeneration,
  '0015-idempotency-keys': idempotencyKeys,
  '0016-audit-log': auditLog,
  '0020-audit-outcomes': auditOutcomes,
  '0021-pending-deliveries': pendingDeliveries,
  '0023-audit-at-brin': auditAtBrin,
  '0024-change-event-record-json': changeEventRecordJson,
  '0025-audit-organization-key': auditOrganizationKey,
  '0026-audit-spool-offsets': auditSpoolOffsets,
  '0027-deliveries-by-status': deliveriesByStatus,
  '0028-fair-deliveries': fairDeliveries,
  '0034-connector-definitions': connectorDefinitions,
  '0035-usage-and-quotas': usageAndQuotas,
  '0037-text-embeddings': textEmbeddings,
  '0040-change-event-prior': changeEventPrior,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  // Unordered: migrations are written in parallel branches, so one may land after a later-numbered one ran.
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, { cause: error });
  }
}
