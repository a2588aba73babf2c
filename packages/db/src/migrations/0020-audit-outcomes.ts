import { type Kysely, sql } from 'kysely';

/**
 * An audited call in two append-only rows (docs/trusted-calls.md): its intent in `audit_entries` (who, what, params,
 * request id), written while the call runs, and its outcome in `audit_outcomes` (status, error, upstream status,
 * latency), written once it is answered. An intent without an outcome is a call whose process ended before it
 * answered. Calls audited in one row (a connector change) keep their outcome in `audit_entries` itself, hence the
 * nullable status and latency. No foreign key: it would cost a lookup per insert; `audit_purge` removes both.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table audit_entries alter column status drop not null, alter column latency_ms drop not null`.execute(
    db,
  );
  await db.schema
    .createTable('audit_outcomes')
    .addColumn('entry_id', 'bigint', (c) => c.primaryKey())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('upstream_status', 'integer')
    .addColumn('latency_ms', 'double precision', (c) => c.notNull())
    .execute();
  await sql`
    create trigger audit_outcomes_no_update_or_delete before update or delete on audit_outcomes
    for each row execute function audit_entries_append_only()`.execute(db);
  await sql`
    create trigger audit_outcomes_no_truncate before truncate on audit_outcomes
    for each statement execute function audit_entries_append_only()`.execute(db);
  await auditPurge(`
      with gone as (delete from audit_entries where at < now() - retention returning id),
        outcomes as (delete from audit_outcomes where entry_id in (select id from gone))
      select count(*) into removed from gone;`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_outcomes').execute();
  await auditPurge(`
      delete from audit_entries where at < now() - retention;
      get diagnostics removed = row_count;`).execute(db);
}

/** audit_purge as up() and down() define it, but for `removal`: the statements that delete and count (`removed`). */
function auditPurge(removal: string) {
  return sql`
    create or replace function audit_purge(retention interval) returns bigint language plpgsql as $$
    declare removed bigint;
    begin
      if retention < interval '1 day' then
        raise exception 'audit retention must be at least one day, not %', retention;
      end if;
      perform set_config('conduit.audit_purge', 'on', true);
      ${sql.raw(removal)}
      perform set_config('conduit.audit_purge', 'off', true);
      return removed;
    end $$`;
}
