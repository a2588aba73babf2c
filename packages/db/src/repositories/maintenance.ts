import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';

/**
 * What autovacuum does, for a server that runs without it (docs/scaling.md, "Postgres without autovacuum"). The
 * retention's deletes and every append's, claim's and checkpoint's updates leave dead rows whose space only VACUUM
 * hands back for reuse: without it each table grows with its churn, not its rows (change events by 14 MB per 100,000
 * appended and purged, a feed head by 2.2 MB per 100,000 appends, however few rows they hold), the audit trail's
 * BRIN index is never summarized (the purge reads the whole trail), and a planner without statistics guesses.
 */
export class TableMaintenance {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /**
   * VACUUM (ANALYZE) of each table of the schema autovacuum leaves alone (off for the server, or for that table);
   * returns how many. One table at a time, each its own short lock that writes do not wait for, skipping one a
   * vacuum already holds (another worker's, or autovacuum's).
   */
  async vacuumUnattended(): Promise<number> {
    const { rows } = await sql<{ name: string }>`
      select c.relname as name from pg_class c
      where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r'
        and (not current_setting('autovacuum')::boolean or not current_setting('track_counts')::boolean
          or 'autovacuum_enabled=false' = any(coalesce(c.reloptions, '{}')))
      order by c.relname`.execute(this.#db);
    for (const { name } of rows) {
      await sql`vacuum (analyze, skip_locked) ${sql.table(name)}`.execute(this.#db);
    }
    return rows.length;
  }
}
