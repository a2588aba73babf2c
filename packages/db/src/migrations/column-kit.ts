import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely';

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

/** A plain b-tree index; a column may carry its order (`id desc`). */
export function createIndex(db: Kysely<unknown>, name: string, table: string, columns: string[]): Promise<void> {
  return db.schema.createIndex(name).on(table).columns(columns).execute();
}
