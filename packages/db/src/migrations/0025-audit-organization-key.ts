import { type Kysely, sql } from 'kysely';

/**
 * The audit trail's primary key on (organization_id, id) instead of id alone, and the (organization_id, id desc)
 * index dropped: the key's btree now serves what that index served (an organization's page, newest first, read
 * backwards), and is still unique (id alone is, being an identity always generated). Nothing reads an entry by id
 * alone (outcomes are found by their own key, entry_id). One btree fewer to write, and its WAL, for every entry, on
 * the answer's path (docs/trusted-calls.md, "What the trail costs"). The new key's index is built under the table's
 * lock, in the migrations' transaction: audited calls wait for it (9.6 s for a million entries on a shared 2-core
 * machine at load 28).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table audit_entries drop constraint audit_entries_pkey`.execute(db);
  await db.schema.dropIndex('audit_entries_organization_id').execute();
  await sql`alter table audit_entries add constraint audit_entries_pkey primary key (organization_id, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table audit_entries drop constraint audit_entries_pkey`.execute(db);
  await sql`alter table audit_entries add constraint audit_entries_pkey primary key (id)`.execute(db);
  await db.schema
    .createIndex('audit_entries_organization_id')
    .on('audit_entries')
    .columns(['organization_id', 'id desc'])
    .execute();
}
