import type { Kysely } from 'kysely';
import { createIndex } from './column-kit.ts';

/**
 * An endpoint's deliveries of one status, newest first (the deliveries page, docs/changes.md): one index probe per
 * status whatever the table's statistics. Read by `endpoint_id` and ordered by `id`, a planner without statistics
 * (autovacuum off, or not yet run) walked the whole table backwards for an endpoint with few deliveries, and with a
 * status filter both with and without them read every delivery of the endpoint (docs/scaling.md, "Postgres without
 * autovacuum"). `webhook_deliveries_by_record`, which nothing reads since the pending-only index of 0021, goes: no
 * more btrees to write per delivery than before. Built under the table's lock, in the migrations' transaction.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createIndex(db, 'webhook_deliveries_by_status', 'webhook_deliveries', ['endpoint_id', 'status', 'id']);
  await db.schema.dropIndex('webhook_deliveries_by_record').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await createIndex(db, 'webhook_deliveries_by_record', 'webhook_deliveries', [
    'endpoint_id',
    'connector_id',
    'record_ref',
    'seq',
  ]);
  await db.schema.dropIndex('webhook_deliveries_by_status').execute();
}
