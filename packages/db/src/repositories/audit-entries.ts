import { type Kysely, sql } from 'kysely';
import type { AuditEntryRow, Database, NewAuditEntry } from '../schema.ts';

export interface AuditQuery {
  readonly organizationId: string;
  readonly connectorId?: string | undefined;
  /** Exact, or a dotted prefix: `execute` matches `execute.create`. */
  readonly action?: string | undefined;
  /** Answer statuses in [min, max]. */
  readonly status?: { readonly min: number; readonly max: number } | undefined;
  readonly since?: Date | undefined;
  readonly until?: Date | undefined;
  /** Entries older than this id (the previous page's last). */
  readonly beforeId?: number | undefined;
  readonly limit: number;
}

/** The audit trail's rows: inserted in batches, read newest first, removed only by the retention (audit_purge). */
export class AuditEntriesRepository {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** One INSERT for every entry given: concurrent calls' entries travel together. */
  async insertMany(entries: readonly NewAuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.#db
      .insertInto('audit_entries')
      .values([...entries])
      .execute();
  }

  /** A page of the organization's entries, newest first. */
  async page(query: AuditQuery): Promise<AuditEntryRow[]> {
    let select = this.#db
      .selectFrom('audit_entries')
      .selectAll()
      .where('organization_id', '=', query.organizationId)
      .orderBy('id', 'desc')
      .limit(query.limit);
    if (query.connectorId !== undefined) select = select.where('connector_id', '=', query.connectorId);
    if (query.action !== undefined) {
      const action = query.action;
      select = select.where((eb) =>
        eb.or([eb('action', '=', action), eb('action', 'like', `${action.replaceAll(/[\\%_]/g, '\\$&')}.%`)]),
      );
    }
    if (query.status !== undefined) {
      select = select.where('status', '>=', query.status.min).where('status', '<=', query.status.max);
    }
    if (query.since !== undefined) select = select.where('at', '>=', query.since);
    if (query.until !== undefined) select = select.where('at', '<', query.until);
    if (query.beforeId !== undefined) select = select.where('id', '<', query.beforeId);
    return select.execute();
  }

  /** Removes entries older than `retentionMs` (at least a day: the database refuses less); returns how many. */
  async purge(retentionMs: number): Promise<number> {
    const result = await sql<{ removed: string }>`
      select audit_purge(${`${Math.round(retentionMs)} milliseconds`}::interval) as removed`.execute(this.#db);
    return Number(result.rows[0]?.removed ?? 0);
  }
}
