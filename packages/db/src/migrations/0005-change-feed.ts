import { type Kysely, sql } from 'kysely';

/**
 * The change feed (docs/changes.md): per connector, the events of every change the copy applied, numbered in the
 * order it applied them (`change_feed_heads.last_seq`, taken under the head row's lock), and the last applied
 * version and content hash of each record (what tells created, updated and unchanged apart). Retention deletes
 * events older than CHANGES_RETENTION and remembers the highest number it deleted (`purged_through`), so an
 * older cursor answers 410.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('change_feed_heads')
    .addColumn('connector_id', 'text', (c) => c.primaryKey().references('connectors.id').onDelete('cascade'))
    .addColumn('last_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('purged_through', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('record_states')
    .addColumn('connector_id', 'text', (c) => c.notNull().references('connectors.id').onDelete('cascade'))
    .addColumn('entity', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('content_hash', 'text')
    .addColumn('deleted', 'boolean', (c) => c.notNull())
    .addPrimaryKeyConstraint('record_states_pkey', ['connector_id', 'entity', 'key'])
    .execute();
  await db.schema
    .createTable('change_events')
    .addColumn('connector_id', 'text', (c) => c.notNull().references('connectors.id').onDelete('cascade'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('entity', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('record', 'jsonb')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addPrimaryKeyConstraint('change_events_pkey', ['connector_id', 'seq'])
    .execute();
  await db.schema
    .createIndex('change_events_by_entity')
    .on('change_events')
    .columns(['connector_id', 'entity', 'seq'])
    .execute();
  await db.schema.createIndex('change_events_by_time').on('change_events').column('changed_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('change_events').execute();
  await db.schema.dropTable('record_states').execute();
  await db.schema.dropTable('change_feed_heads').execute();
}
