import { type Kysely, sql } from 'kysely';
import { appendOnly, auditPurge } from './audit-kit.ts';

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
  await appendOnly(db, 'audit_outcomes');
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
