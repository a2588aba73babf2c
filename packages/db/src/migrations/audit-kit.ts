import { type Kysely, sql } from 'kysely';

/*
 * What the audit trail's migrations (0016, 0020) share. Frozen like them: nothing here is edited once landed, since
 * it would change what a landed migration does.
 */

/** Refuses every UPDATE, DELETE and TRUNCATE on `table` (audit_entries_append_only lets the retention's DELETE pass). */
export async function appendOnly(db: Kysely<unknown>, table: string): Promise<void> {
  await sql`
    create trigger ${sql.raw(table)}_no_update_or_delete before update or delete on ${sql.raw(table)}
    for each row execute function audit_entries_append_only()`.execute(db);
  await sql`
    create trigger ${sql.raw(table)}_no_truncate before truncate on ${sql.raw(table)}
    for each statement execute function audit_entries_append_only()`.execute(db);
}

/**
 * `audit_purge(retention)`: refuses a retention under one day, then runs `removal` (the statements that delete and
 * count into `removed`) with the flag set that lets the append-only trigger pass the retention's DELETE.
 */
export function auditPurge(removal: string) {
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
