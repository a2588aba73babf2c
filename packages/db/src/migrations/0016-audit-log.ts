import { type Kysely, sql } from 'kysely';

/**
 * The audit trail (docs/trusted-calls.md): one row per audited call, append-only in the database itself. A trigger
 * refuses every UPDATE and TRUNCATE, and every DELETE but the retention's: `audit_purge(retention)` removes rows
 * older than the retention (at least one day) and is the only path that sets the flag the trigger checks.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_entries')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text')
    .addColumn('connector_id', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('entity', 'text')
    .addColumn('params', 'jsonb')
    .addColumn('idempotency_key', 'text')
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('upstream_status', 'integer')
    .addColumn('latency_ms', 'double precision', (c) => c.notNull())
    .addColumn('request_id', 'text')
    .execute();
  // Newest first per organization, by id (ids grow with insertion).
  await db.schema
    .createIndex('audit_entries_organization_id')
    .on('audit_entries')
    .columns(['organization_id', 'id desc'])
    .execute();
  await db.schema
    .createIndex('audit_entries_connector_id')
    .on('audit_entries')
    .columns(['organization_id', 'connector_id', 'id desc'])
    .execute();
  await db.schema.createIndex('audit_entries_at').on('audit_entries').column('at').execute();

  await sql`
    create function audit_entries_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' and current_setting('conduit.audit_purge', true) = 'on' then
        return old;
      end if;
      raise exception 'audit_entries is append-only: % is not allowed', tg_op using errcode = 'insufficient_privilege';
    end $$`.execute(db);
  await sql`
    create trigger audit_entries_no_update_or_delete before update or delete on audit_entries
    for each row execute function audit_entries_append_only()`.execute(db);
  await sql`
    create trigger audit_entries_no_truncate before truncate on audit_entries
    for each statement execute function audit_entries_append_only()`.execute(db);
  await sql`
    create function audit_purge(retention interval) returns bigint language plpgsql as $$
    declare removed bigint;
    begin
      if retention < interval '1 day' then
        raise exception 'audit retention must be at least one day, not %', retention;
      end if;
      perform set_config('conduit.audit_purge', 'on', true);
      delete from audit_entries where at < now() - retention;
      get diagnostics removed = row_count;
      perform set_config('conduit.audit_purge', 'off', true);
      return removed;
    end $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_entries').execute();
  await sql`drop function if exists audit_purge(interval)`.execute(db);
  await sql`drop function if exists audit_entries_append_only()`.execute(db);
}
