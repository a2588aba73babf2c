import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/**
 * A change event's record as `json` (its text, stored as the append sends it) instead of `jsonb`: the feed only
 * stores a record and gives it back whole, never queries inside it, and converting every record to jsonb on the
 * way in was most of what Postgres spent on a first sync's appends (docs/scaling.md, "One large initial sync").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table change_events alter column record type json using record::json`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table change_events alter column record type jsonb using record::jsonb`.execute(db);
}
