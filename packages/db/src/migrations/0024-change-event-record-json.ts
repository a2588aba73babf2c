import { type Kysely, sql } from 'kysely';

/**
 * A change event's record as `json` (the text as the sink serialized and hashed it) rather than `jsonb`: jsonb
 * refuses a string holding U+0000 ("unsupported Unicode escape sequence"), which an upstream record may carry and
 * the copy and the webhooks pass on, so one such record stopped its entity's feed appends for good. `json` keeps
 * the text (and its key order) as sent; reading it back parses the same JSON. Appending cost the same with either
 * type (docs/changes.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table change_events alter column record type json using record::json`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // A record holding U+0000 has no jsonb form: it is kept as null rather than failing the whole rollback.
  await sql`
    alter table change_events alter column record type jsonb
    using case when strpos(record::text, '\\u0000') > 0 then null else record::jsonb end`.execute(db);
}
