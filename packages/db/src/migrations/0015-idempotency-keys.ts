import { type Kysely, sql } from 'kysely';

/**
 * Idempotency keys of writing execute calls (docs/trusted-calls.md): one row per (organization, connector, key),
 * holding the request's fingerprint, its state, the parameters actually sent upstream (a vendor-side id such as
 * Drive's pre-generated file id, so a retry after a crash sends the same one) and, once answered, the answer.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('connector_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('in_progress', 'completed')`))
    .addColumn('sent_params', 'jsonb')
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pkey', ['organization_id', 'connector_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expires_at').on('idempotency_keys').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
