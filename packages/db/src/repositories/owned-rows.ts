import type { Kysely, UpdateQueryBuilder, UpdateResult } from 'kysely';
import type { Database } from '../schema.ts';

/** Tables whose rows belong to one organization and are named by `id`: every write is scoped by both. */
type OwnedTable = 'connectors' | 'webhook_endpoints';

/** Removes an organization's row; false when it has none of that id (another organization's is not its to remove). */
export async function deleteOwned(
  db: Kysely<Database>,
  table: OwnedTable,
  organizationId: string,
  id: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom(table)
    .where('id', '=', id)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * An update of an organization's row of that id: another organization's is not its to change (the caller sets the
 * columns, then returns or executes).
 */
export function updateOwned<T extends OwnedTable>(
  db: Kysely<Database>,
  table: T,
  organizationId: string,
  id: string,
): UpdateQueryBuilder<Database, T, T, UpdateResult> {
  const query = db
    .updateTable(table as OwnedTable)
    .where('id', '=', id)
    .where('organization_id', '=', organizationId);
  // Kysely cannot narrow `where` over a generic table; the query is the one of `table`, so its type is that one's.
  return query as unknown as UpdateQueryBuilder<Database, T, T, UpdateResult>;
}
