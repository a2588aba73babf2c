import { type Kysely, sql } from 'kysely';

/**
 * How far each audit spool file (AUDIT_COMMIT=spool, docs/trusted-calls.md) has been shipped into audit_entries: the
 * byte offset after its last shipped line. A shipper updates it in the same transaction as the entries it inserts,
 * holding the row's lock, so a batch is in the trail exactly once even when its process dies mid-ship or two
 * processes recover the same orphaned file.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_spool_offsets')
    .addColumn('spool', 'text', (c) => c.primaryKey())
    .addColumn('shipped', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_spool_offsets').execute();
}
