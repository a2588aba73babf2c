import type { Kysely } from 'kysely';
import { belongsTo, notNull, notNullNow } from './column-kit.ts';

/**
 * Connector kinds defined at run time (docs/definitions.md): one row per organization and kind name, its versions
 * beside it. A version is never changed once written; `active_version` says which one connectors of the kind use.
 * Names are unique per organization, case-insensitively, as connector_type is matched.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('connector_definitions')
    .addColumn('organization_id', 'text', belongsTo('organizations.id'))
    .addColumn('name_key', 'text', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('active_version', 'integer')
    .addColumn('created_at', 'timestamptz', notNullNow)
    .addPrimaryKeyConstraint('connector_definitions_pkey', ['organization_id', 'name_key'])
    .execute();
  await db.schema
    .createTable('connector_definition_versions')
    .addColumn('organization_id', 'text', notNull)
    .addColumn('name_key', 'text', notNull)
    .addColumn('version', 'integer', notNull)
    .addColumn('document', 'jsonb', notNull)
    .addColumn('created_at', 'timestamptz', notNullNow)
    .addColumn('activated_at', 'timestamptz')
    .addPrimaryKeyConstraint('connector_definition_versions_pkey', ['organization_id', 'name_key', 'version'])
    .addForeignKeyConstraint(
      'connector_definition_versions_definition',
      ['organization_id', 'name_key'],
      'connector_definitions',
      ['organization_id', 'name_key'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('connector_definition_versions').execute();
  await db.schema.dropTable('connector_definitions').execute();
}
