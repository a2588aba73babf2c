import { type Kysely, sql } from 'kysely';
import type { AuditEntryRow, Database } from '../schema.ts';

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

/** The audit trail's rows (written by AuditWriter): read newest first, removed only by the retention (audit_purge). */
export class AuditEntriesRepository {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /**
   * A page of the organization's entries, newest first, each with its outcome (from `audit_outcomes` when the
   * intent was written first; status and latency null when the call never recorded one).
   */
  async page(query: AuditQuery): Promise<AuditEntryRow[]> {
    const status = sql<number | null>`coalesce(o.status, e.status)`;
    let select = this.#db
      .selectFrom('audit_entries as e')
      .leftJoin('audit_outcomes as o', 'o.entry_id', 'e.id')
      .select([
        'e.id',
        'e.at',
        'e.organization_id',
        'e.client_id',
        'e.connector_id',
        'e.source',
        'e.action',
        'e.entity',
        'e.params',
        'e.idempotency_key',
        status.as('status'),
        sql<string | null>`coalesce(o.error_code, e.error_code)`.as('error_code'),
        sql<number | null>`coalesce(o.upstream_status, e.upstream_status)`.as('upstream_status'),
        sql<number | null>`coalesce(o.latency_ms, e.latency_ms)`.as('latency_ms'),
        'e.request_id',
      ])
      .where('e.organization_id', '=', query.organizationId)
      .orderBy('e.id', 'desc')
      .limit(query.limit);
    if (query.connectorId !== undefined) select = select.where('e.connector_id', '=', query.connectorId);
    if (query.action !== undefined) {
      const action = query.action;
      select = select.where((eb) =>
        eb.or([eb('e.action', '=', action), eb('e.action', 'like', `${action.replaceAll(/[\\%_]/g, '\\$&')}.%`)]),
      );
    }
    if (query.status !== undefined) {
      select = select.where(status, '>=', query.status.min).where(status, '<=', query.status.max);
    }
    if (query.since !== undefined) select = select.where('e.at', '>=', query.since);
    if (query.until !== undefined) select = select.where('e.at', '<', query.until);
    if (query.beforeId !== undefined) select = select.where('e.id', '<', query.beforeId);
    return select.execute();
  }

  /** Removes entries older than `retentionMs` (at least a day: the database refuses less); returns how many. */
  async purge(retentionMs: number): Promise<number> {
    const result = await sql<{ removed: string }>`
      select audit_purge(${`${Math.round(retentionMs)} milliseconds`}::interval) as removed`.execute(this.#db);
    return Number(result.rows[0]?.removed ?? 0);
  }
}
