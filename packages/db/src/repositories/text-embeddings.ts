import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

/** One connector's vectors computed by one model (migration 0037). */
export interface EmbeddingScope {
  readonly connectorId: string;
  readonly model: string;
}

/**
 * Vectors of embedded texts by hash: what the worker computed, and what writes of the copy attach to documents.
 *
 * @example
 *   const known = await textEmbeddings.find({ connectorId, model }, ['h1', 'h2']); // Map<hash, Float32Array>
 */
export class TextEmbeddingsRepository {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async find(scope: EmbeddingScope, hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    if (hashes.length === 0) return found;
    const rows = await this.#db
      .selectFrom('text_embeddings')
      .select(['text_hash', 'vector'])
      .where('connector_id', '=', scope.connectorId)
      .where('model', '=', scope.model)
      .where('text_hash', 'in', [...hashes])
      .execute();
    for (const row of rows) found.set(row.text_hash, fromBytes(row.vector));
    return found;
  }

  /** Stores vectors; a vector already stored for the same text stays (it is the same vector). */
  async save(scope: EmbeddingScope, vectors: readonly { hash: string; vector: Float32Array }[]): Promise<void> {
    if (vectors.length === 0) return;
    await this.#db
      .insertInto('text_embeddings')
      .values(
        vectors.map(({ hash, vector }) => ({
          connector_id: scope.connectorId,
          model: scope.model,
          text_hash: hash,
          vector: toBytes(vector),
        })),
      )
      .onConflict((c) => c.columns(['connector_id', 'model', 'text_hash']).doNothing())
      .execute();
  }
}

function toBytes(vector: Float32Array): Buffer {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i] ?? 0, i * 4);
  return bytes;
}

function fromBytes(bytes: Buffer): Float32Array {
  const vector = new Float32Array(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}
