import { type Kysely, sql } from 'kysely';
import { createOwnedTable, createOwnedTableWithId, notNull, notNullNow } from './column-kit.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', notNull)
    .addColumn('created_at', 'timestamptz', notNullNow)
    .execute();

  await db.schema
    .createTable('api_clients')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('secret_hash', 'text', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('allowed_redirect_urls', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('created_at', 'timestamptz', notNullNow)
    .execute();

  await createOwnedTable(db, 'client_organizations', {
    client_id: 'api_clients.client_id',
    organization_id: 'organizations.id',
  })
    .addPrimaryKeyConstraint('client_organizations_pk', ['client_id', 'organization_id'])
    .execute();

  await createOwnedTableWithId(db, 'connectors', 'text', { organization_id: 'organizations.id' })
    .addColumn('connector_type', 'text', notNull)
    .addColumn('customer_name', 'text', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('credentials_ciphertext', 'text', notNull)
    .addColumn('config', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('replication_config', 'jsonb', notNull)
    .addColumn('created_at', 'timestamptz', notNullNow)
    .addColumn('updated_at', 'timestamptz', notNullNow)
    .addUniqueConstraint('connectors_identity_uq', ['organization_id', 'customer_name', 'connector_type', 'name'])
    .execute();

  await createOwnedTable(db, 'sync_states', { connector_id: 'connectors.id' })
    .addColumn('entity', 'text', notNull)
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('running', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('last_success_at', 'timestamptz')
    .addColumn('last_run_started_at', 'timestamptz')
    .addColumn('record_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('cursor', 'jsonb')
    .addColumn('checkpoint', 'jsonb')
    .addColumn('run_id', 'text')
    .addColumn('updated_at', 'timestamptz', notNullNow)
    .addPrimaryKeyConstraint('sync_states_pk', ['connector_id', 'entity'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['sync_states', 'connectors', 'client_organizations', 'api_clients', 'organizations']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
