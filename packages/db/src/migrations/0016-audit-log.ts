import { type Kysely, sql } from 'kysely';
import { appendOnly, auditPurge } from './audit-kit.ts';
import { createIndex, notNull, notNullNow } from './column-kit.ts';

/**
 * The audit trail (docs/trusted-calls.md): one row per audited call, append-only in the database itself. A trigger
 * refuses every UPDATE and TRUNCATE, and every DELETE but the retention's: `audit_purge(retention)` removes rows
 * older than the retention (at least one day) and is the only path that sets the flag the trigger checks.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_entries')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('at', 'timestamptz', notNullNow)
    .addColumn('organization_id', 'text', notNull)
    .addColumn('client_id', 'text')
    .addColumn('connector_id', 'text')
    .addColumn('source', 'text', notNull)
    .addColumn('action', 'text', notNull)
    .addColumn('entity', 'text')
    .addColumn('params', 'jsonb')
    .addColumn('idempotency_key', 'text')
    .addColumn('status', 'integer', notNull)
    .addColumn('error_code', 'text')
    .addColumn('upstream_status', 'integer')
    .addColumn('latency_ms', 'double precision', notNull)
    .addColumn('request_id', 'text')
    .execute();
  // Newest first per organization, by id (ids grow with insertion).
  await createIndex(db, 'audit_entries_organization_id', 'audit_entries', ['organization_id', 'id desc']);
  await createIndex(db, 'audit_entries_connector_id', 'audit_entries', ['organization_id', 'connector_id', 'id desc']);
  await db.schema.createIndex('audit_entries_at').on('audit_entries').column('at').execute();

  await sql`
    create function audit_entries_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' and current_setting('conduit.audit_purge', true) = 'on' then
        return old;
      end if;
      raise exception 'audit_entries is append-only: % is not allowed', tg_op using errcode = 'insufficient_privilege';
    end $$`.execute(db);
  await appendOnly(db, 'audit_entries');
  await auditPurge(`delete from audit_entries where at < now() - retention;
      get diagnostics removed = row_count;`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_entries').execute();
  await sql`drop function if exists audit_purge(interval)`.execute(db);
  await sql`drop function if exists audit_entries_append_only()`.execute(db);
}
