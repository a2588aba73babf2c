import { type Kysely, sql } from 'kysely';
import { createIndex, createOwnedTable, notNull } from './column-kit.ts';

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
  await createOwnedTable(db, 'record_states', { connector_id: 'connectors.id' })
    .addColumn('entity', 'text', notNull)
    .addColumn('key', 'text', notNull)
    .addColumn('version', 'bigint', notNull)
    .addColumn('content_hash', 'text')
    .addColumn('deleted', 'boolean', notNull)
    .addPrimaryKeyConstraint('record_states_pkey', ['connector_id', 'entity', 'key'])
    .execute();
  await createOwnedTable(db, 'change_events', { connector_id: 'connectors.id' })
    .addColumn('seq', 'bigint', notNull)
    .addColumn('type', 'text', notNull)
    .addColumn('entity', 'text', notNull)
    .addColumn('key', 'text', notNull)
    .addColumn('record', 'jsonb')
    .addColumn('source', 'text', notNull)
    .addColumn('changed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addPrimaryKeyConstraint('change_events_pkey', ['connector_id', 'seq'])
    .execute();
  await createIndex(db, 'change_events_by_entity', 'change_events', ['connector_id', 'entity', 'seq']);
  await db.schema.createIndex('change_events_by_time').on('change_events').column('changed_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('change_events').execute();
  await db.schema.dropTable('record_states').execute();
  await db.schema.dropTable('change_feed_heads').execute();
}
