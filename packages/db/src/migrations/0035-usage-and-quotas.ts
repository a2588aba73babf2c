import { type Kysely, sql } from 'kysely';
import { belongsTo, notNull, notNullNow } from './column-kit.ts';

/**
 * Usage per organization, connector, hour and metric (docs/operations.md, "Usage and quotas"): one row per
 * (organization, connector, hour, metric), added to by each process's periodic flush (an upsert), so the table grows
 * with hours × metrics × connectors, never with calls. `connector_id` is '' for what belongs to no connector. Not
 * owned by the connector: its usage stays countable after it is removed. Quotas an operator set per organization,
 * one row per quota; a quota without a row is the deployment's default (QUOTA_DEFAULTS).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('usage_hourly')
    .addColumn('organization_id', 'text', notNull)
    .addColumn('connector_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('hour', 'timestamptz', notNull)
    .addColumn('metric', 'text', notNull)
    .addColumn('value', 'bigint', notNull)
    .addPrimaryKeyConstraint('usage_hourly_pkey', ['organization_id', 'hour', 'metric', 'connector_id'])
    .execute();
  // The retention removes by hour across organizations.
  await sql`create index usage_hourly_hour on usage_hourly using brin (hour)`.execute(db);
  await db.schema
    .createTable('organization_quotas')
    .addColumn('organization_id', 'text', belongsTo('organizations.id'))
    .addColumn('quota', 'text', notNull)
    .addColumn('limit', 'bigint', notNull)
    .addColumn('updated_at', 'timestamptz', notNullNow)
    .addPrimaryKeyConstraint('organization_quotas_pkey', ['organization_id', 'quota'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('organization_quotas').execute();
  await db.schema.dropTable('usage_hourly').execute();
}
