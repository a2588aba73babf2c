import { type Kysely, sql } from 'kysely';

/**
 * The audit trail's `at` indexed by block ranges (BRIN) instead of a btree. `at` grows with insertion, so a BRIN
 * index serves what reads it (the retention's `at < now() - retention`, a page's `since`/`until`) just as well, and
 * an insert at the table's end (every trail entry, on the answer's path) leaves it untouched until its range is
 * summarized by vacuum, where a btree costs a descent, a leaf write and its WAL per entry (docs/trusted-calls.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_entries_at').execute();
  await sql`create index audit_entries_at on audit_entries using brin (at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_entries_at').execute();
  await db.schema.createIndex('audit_entries_at').on('audit_entries').column('at').execute();
}
