import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('api_clients')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('allowed_redirect_urls', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('client_organizations')
    .addColumn('client_id', 'text', (c) => c.notNull().references('api_clients.client_id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('client_organizations_pk', ['client_id', 'organization_id'])
    .execute();

  await db.schema
    .createTable('connectors')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('connector_type', 'text', (c) => c.notNull())
    .addColumn('customer_name', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('credentials_ciphertext', 'text', (c) => c.notNull())
    .addColumn('config', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('replication_config', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('connectors_identity_uq', ['organization_id', 'customer_name', 'connector_type', 'name'])
    .execute();

  await db.schema
    .createTable('sync_states')
    .addColumn('connector_id', 'text', (c) => c.notNull().references('connectors.id').onDelete('cascade'))
    .addColumn('entity', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('running', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('last_success_at', 'timestamptz')
    .addColumn('last_run_started_at', 'timestamptz')
    .addColumn('record_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('cursor', 'jsonb')
    .addColumn('checkpoint', 'jsonb')
    .addColumn('run_id', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('sync_states_pk', ['connector_id', 'entity'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['sync_states', 'connectors', 'client_organizations', 'api_clients', 'organizations']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
