import { type Kysely, sql } from 'kysely';

/**
 * The record an event replaced (docs/architecture.md, "The answer cache"): each record's state remembers the number of
 * the event that last changed it (`record_states.event_seq`), and each event the number of the one before it for
 * the same record (`change_events.prior_seq`, null for a creation). An update or removal thus finds the record as it
 * was by primary key, which tells a cached answer whether the change could concern it: a change whose old and new
 * record both fall outside a query's filter leaves the answer as it was. Rows from before this migration have none:
 * their old record is unknown, and an unknown record may concern any answer.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table record_states add column event_seq bigint`.execute(db);
  await sql`alter table change_events add column prior_seq bigint`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table change_events drop column prior_seq`.execute(db);
  await sql`alter table record_states drop column event_seq`.execute(db);
}
