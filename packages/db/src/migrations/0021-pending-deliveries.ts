import { type Kysely, sql } from 'kysely';

/**
 * Indexes on pending deliveries only (docs/changes.md), what claimDue reads on every round: the due ones in the
 * order they are sent, and each record's pending ones by number (the "oldest pending of its record" rule). With the
 * rule checked through the index on every event of the connector, one claim walked all earlier deliveries of each
 * candidate: after a 10-minute outage at 100 events/s a claim took 48 s and the backlog never drained.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_pending_due')
    .on('webhook_deliveries')
    .columns(['next_attempt_at', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_pending_by_record')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'connector_id', 'record_ref', 'seq'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema.dropIndex('webhook_deliveries_due').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema.dropIndex('webhook_deliveries_pending_by_record').execute();
  await db.schema.dropIndex('webhook_deliveries_pending_due').execute();
}
