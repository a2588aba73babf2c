import type { Kysely } from 'kysely';
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
