import type { Kysely } from 'kysely';
import { createOwnedTable, notNull, notNullNow } from './column-kit.ts';

/**
 * The vectors of embedded record texts (search by meaning, docs/search.md), by connector and text hash: a text the
 * worker embedded once is never embedded again, whichever write of the record brings it back, and the copy's
 * documents take their vector from here when they are written. Owned by the connector: removing a connector removes
 * its vectors, and no vector crosses connectors (nor organizations). `model` names the model that computed the vector
 * (a new model computes new ones). `vector`: little-endian float32s.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createOwnedTable(db, 'text_embeddings', { connector_id: 'connectors.id' })
    .addColumn('model', 'text', notNull)
    .addColumn('text_hash', 'text', notNull)
    .addColumn('vector', 'bytea', notNull)
    .addColumn('created_at', 'timestamptz', notNullNow)
    .addPrimaryKeyConstraint('text_embeddings_pkey', ['connector_id', 'model', 'text_hash'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('text_embeddings').execute();
}
