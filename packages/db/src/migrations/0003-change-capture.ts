import { type Kysely, sql } from 'kysely';

/**
 * Change capture: when an entity last finished a full pass, and whether one was asked for
 * (POST .../sync {"mode": "full"}). Credentials the upstream rejected: the connector says so until
 * they are replaced.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('sync_states')
    .addColumn('last_full_sync_at', 'timestamptz')
    .addColumn('full_requested', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  // Entities that already finished a pass: that pass read everything from start_date.
  await sql`update sync_states set last_full_sync_at = last_success_at`.execute(db);
  await db.schema
    .alterTable('connectors')
    .addColumn('credentials_rejected_at', 'timestamptz')
    .addColumn('credentials_error', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('connectors')
    .dropColumn('credentials_rejected_at')
    .dropColumn('credentials_error')
    .execute();
  await db.schema.alterTable('sync_states').dropColumn('last_full_sync_at').dropColumn('full_requested').execute();
}
