import { type Kysely, sql } from 'kysely';

/**
 * Deliveries shared fairly between organizations and endpoints (docs/changes.md, "Sharing the senders"):
 * - `webhook_endpoints.slow_until`: an endpoint whose last attempt was slow (or timed out) has one delivery in
 *   flight at a time until then, so a slow receiver holds one sender, not dozens.
 * - each endpoint's due pending deliveries in the order they are sent, so a claim takes the next few of each
 *   endpoint with one index probe per endpoint, however long another endpoint's backlog is;
 * - the deliveries in flight (leased) per endpoint, what the caps per endpoint and per organization count. A lease
 *   is cleared when the attempt is recorded, so this index holds only what is being sent (and leases of a worker
 *   that died, until they are taken over).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('slow_until', 'timestamptz').execute();
  await db.schema
    .createIndex('webhook_deliveries_pending_by_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'next_attempt_at', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_leased')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'leased_until'])
    .where(sql<boolean>`status = 'pending' and leased_until is not null`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_leased').execute();
  await db.schema.dropIndex('webhook_deliveries_pending_by_endpoint').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('slow_until').execute();
}
