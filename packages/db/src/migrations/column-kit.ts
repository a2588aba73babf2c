import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, sql } from 'kysely';

/*
 * Column and index shapes that migrations share. Frozen like the migrations that use them: a landed migration's SQL
 * never changes, so nothing here is edited once landed; a different shape is a new helper.
 */

export const notNull = (c: ColumnDefinitionBuilder) => c.notNull();

/** A timestamp the database sets on insertion (created_at, updated_at). */
export const notNullNow = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(sql`now()`);

/** A reference to the row this one belongs to (`table.column`): removing that row removes this one. */
export const belongsTo = (target: string) => (c: ColumnDefinitionBuilder) =>
  c.notNull().references(target).onDelete('cascade');

/**
 * A table whose rows belong to other rows: its first columns are text references to each owner (`column` to
 * `table.column`, in order), so removing an owner removes them. The caller adds the remaining columns and the key.
 */
export function createOwnedTable(
  db: Kysely<unknown>,
  table: string,
  owners: Record<string, string>,
): CreateTableBuilder<string, string> {
  return addOwners(db.schema.createTable(table), owners);
}

/** An owned table whose rows also have their own primary key, `id`, as the first column. */
export function createOwnedTableWithId(
  db: Kysely<unknown>,
  table: string,
  idType: 'text' | 'bigserial',
  owners: Record<string, string>,
): CreateTableBuilder<string, string> {
  return addOwners(
    db.schema.createTable(table).addColumn('id', idType, (c) => c.primaryKey()),
    owners,
  );
}

function addOwners(
  table: CreateTableBuilder<string, string>,
  owners: Record<string, string>,
): CreateTableBuilder<string, string> {
  let builder = table;
  for (const [column, target] of Object.entries(owners)) builder = builder.addColumn(column, 'text', belongsTo(target));
  return builder;
}

/** A plain b-tree index; a column may carry its order (`id desc`). */
export function createIndex(db: Kysely<unknown>, name: string, table: string, columns: string[]): Promise<void> {
  return db.schema.createIndex(name).on(table).columns(columns).execute();
}
