import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';

/** One counter to add: `connectorId` '' for usage that belongs to no connector. */
export interface UsageIncrement {
  readonly organizationId: string;
  readonly connectorId: string;
  readonly hour: Date;
  readonly metric: string;
  readonly value: number;
}

export interface UsageBucketRow {
  readonly start: Date;
  readonly metric: string;
  readonly value: number;
}

// A flush of many counters is one statement per this many rows: a bound far under Postgres' 65,535 parameters.
const ROWS_PER_INSERT = 1000;

/** usage_hourly and organization_quotas (docs/operations.md, "Usage and quotas"). */
export class UsageRepository {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Adds the counters: one upsert per (organization, connector, hour, metric), whatever the process added before. */
  async add(increments: readonly UsageIncrement[]): Promise<void> {
    for (let at = 0; at < increments.length; at += ROWS_PER_INSERT) {
      const rows = increments.slice(at, at + ROWS_PER_INSERT).map((i) => ({
        organization_id: i.organizationId,
        connector_id: i.connectorId,
        hour: i.hour,
        metric: i.metric,
        value: i.value,
      }));
      await this.#db
        .insertInto('usage_hourly')
        .values(rows)
        .onConflict((oc) =>
          oc
            .columns(['organization_id', 'hour', 'metric', 'connector_id'])
            .doUpdateSet({ value: sql`usage_hourly.value + excluded.value` }),
        )
        .execute();
    }
  }

  /**
   * The organization's usage per `granularity` bucket (UTC) in [from, to), summed over its connectors or of one.
   */
  async buckets(query: {
    organizationId: string;
    from: Date;
    to: Date;
    granularity: 'hour' | 'day';
    connectorId?: string | undefined;
  }): Promise<UsageBucketRow[]> {
    // A literal, not a parameter: GROUP BY must see the very expression the SELECT has (one enum of two values).
    const unit = sql.lit(query.granularity === 'hour' ? 'hour' : 'day');
    const start = sql<Date>`date_trunc(${unit}, hour at time zone 'UTC') at time zone 'UTC'`;
    let select = this.#db
      .selectFrom('usage_hourly')
      .select([start.as('start'), 'metric', sql<string>`sum(value)`.as('value')])
      .where('organization_id', '=', query.organizationId)
      .where('hour', '>=', query.from)
      .where('hour', '<', query.to);
    if (query.connectorId !== undefined) select = select.where('connector_id', '=', query.connectorId);
    const rows = await select.groupBy([start, 'metric']).orderBy(start).orderBy('metric').execute();
    return rows.map((r) => ({ start: new Date(r.start), metric: r.metric, value: Number(r.value) }));
  }

  /** Each metric's total since `since`, per organization (today's requests for the daily quota, the gauges). */
  async totalsSince(since: Date, organizationIds?: readonly string[]): Promise<Map<string, Map<string, number>>> {
    if (organizationIds?.length === 0) return new Map();
    let select = this.#db
      .selectFrom('usage_hourly')
      .select(['organization_id', 'metric', sql<string>`sum(value)`.as('value')])
      .where('hour', '>=', since);
    if (organizationIds) select = select.where('organization_id', 'in', organizationIds);
    const rows = await select.groupBy(['organization_id', 'metric']).execute();
    const totals = new Map<string, Map<string, number>>();
    for (const row of rows) {
      const of = totals.get(row.organization_id) ?? new Map<string, number>();
      of.set(row.metric, Number(row.value));
      totals.set(row.organization_id, of);
    }
    return totals;
  }

  /** Removes the hours before `before` (the retention); how many rows. */
  async purgeBefore(before: Date): Promise<number> {
    const result = await this.#db.deleteFrom('usage_hourly').where('hour', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** The organization's connectors, the records its copy holds (the entities' last counts) and its definitions. */
  async stored(organizationId: string): Promise<{ connectors: number; records: number; definitions: number }> {
    const row = await this.#db
      .selectFrom('connectors')
      .leftJoin('sync_states', 'sync_states.connector_id', 'connectors.id')
      .select([
        sql<string>`count(distinct connectors.id)`.as('connectors'),
        sql<string>`coalesce(sum(sync_states.record_count), 0)`.as('records'),
      ])
      .where('connectors.organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    const definitions = await this.#db
      .selectFrom('connector_definitions')
      .select(sql<string>`count(*)`.as('count'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return { connectors: Number(row.connectors), records: Number(row.records), definitions: Number(definitions.count) };
  }

  /** The quotas an operator set for the organization, by name. */
  async quotasOf(organizationId: string): Promise<Record<string, number>> {
    const rows = await this.#db
      .selectFrom('organization_quotas')
      .select(['quota', 'limit'])
      .where('organization_id', '=', organizationId)
      .execute();
    return Object.fromEntries(rows.map((r) => [r.quota, Number(r.limit)]));
  }

  /** Sets a quota of the organization; `null` removes it (the default applies again). */
  async setQuota(organizationId: string, quota: string, limit: number | null): Promise<void> {
    if (limit === null) {
      await this.#db
        .deleteFrom('organization_quotas')
        .where('organization_id', '=', organizationId)
        .where('quota', '=', quota)
        .execute();
      return;
    }
    await this.#db
      .insertInto('organization_quotas')
      .values({ organization_id: organizationId, quota, limit, updated_at: new Date() })
      .onConflict((oc) => oc.columns(['organization_id', 'quota']).doUpdateSet({ limit, updated_at: new Date() }))
      .execute();
  }

  /** Every organization with a quota row or usage since `since` (the gauges' label values). */
  async organizationsActiveSince(since: Date): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('usage_hourly')
      .select('organization_id')
      .where('hour', '>=', since)
      .union(this.#db.selectFrom('organization_quotas').select('organization_id'))
      .execute();
    return rows.map((r) => r.organization_id);
  }
}
