import type { Kysely } from 'kysely';
import { belongsTo, createIndex, createOwnedTable, createOwnedTableWithId, notNull, notNullNow } from './column-kit.ts';

/**
 * Webhooks to the customer (docs/changes.md): endpoints per organization; per endpoint and connector, how far the
 * change feed was turned into deliveries; one delivery per event (the webhook-id of every attempt), leased while in
 * flight so a killed worker's delivery is taken over; and the log of attempts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createOwnedTableWithId(db, 'webhook_endpoints', 'text', { organization_id: 'organizations.id' })
    .addColumn('url', 'text', notNull)
    .addColumn('description', 'text')
    .addColumn('connector_ids', 'jsonb')
    .addColumn('entities', 'jsonb')
    .addColumn('types', 'jsonb')
    .addColumn('secret_ciphertext', 'text', notNull)
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('disabled_reason', 'text')
    .addColumn('failing_since', 'timestamptz')
    .addColumn('created_at', 'timestamptz', notNullNow)
    .addColumn('updated_at', 'timestamptz', notNullNow)
    .execute();
  await createOwnedTable(db, 'webhook_positions', {
    endpoint_id: 'webhook_endpoints.id',
    connector_id: 'connectors.id',
  })
    .addColumn('after_seq', 'bigint', notNull)
    .addPrimaryKeyConstraint('webhook_positions_pkey', ['endpoint_id', 'connector_id'])
    .execute();
  await createOwnedTableWithId(db, 'webhook_deliveries', 'bigserial', {
    endpoint_id: 'webhook_endpoints.id',
    connector_id: 'connectors.id',
  })
    .addColumn('seq', 'bigint', notNull)
    .addColumn('record_ref', 'text', notNull)
    .addColumn('payload', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', notNull)
    .addColumn('leased_until', 'timestamptz')
    .addColumn('created_at', 'timestamptz', notNullNow)
    .addUniqueConstraint('webhook_deliveries_event', ['endpoint_id', 'connector_id', 'seq'])
    .execute();
  await createIndex(db, 'webhook_deliveries_due', 'webhook_deliveries', ['status', 'next_attempt_at']);
  await createIndex(db, 'webhook_deliveries_by_record', 'webhook_deliveries', [
    'endpoint_id',
    'connector_id',
    'record_ref',
    'seq',
  ]);
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('delivery_id', 'bigint', belongsTo('webhook_deliveries.id'))
    .addColumn('attempted_at', 'timestamptz', notNull)
    .addColumn('http_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('latency_ms', 'integer', notNull)
    .execute();
  await db.schema.createIndex('webhook_attempts_by_delivery').on('webhook_attempts').column('delivery_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_positions').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
