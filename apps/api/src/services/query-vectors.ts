import { createEmbedder, type Embedder } from '@conduit/embeddings';
import { LRUCache } from 'lru-cache';
import { ApiError } from '../problem.ts';

/** Texts whose vectors are kept: agents repeat their questions while they page and refine filters. */
const KEPT_TEXTS = 1024;
/** A text longer than this is embedded every time: as a key it would outweigh its vector. */
const KEPT_TEXT_MAX_LENGTH = 4096;

/**
 * The vector of a search's `query.semantic.text` (docs/search.md), by the model the worker embeds records with
 * (EMBEDDING_MODEL_DIR). The model loads on the first search by meaning; a model that cannot load is a 503 for that
 * search, and the next one tries again.
 *
 * @example
 *   const vectors = new QueryVectors(services.embeddingModel.dir);
 *   const vector = await vectors.of('incidents like the checkout outage');
 */
export class QueryVectors {
  readonly #dir: string;
  #model: Promise<Embedder> | undefined;
  readonly #kept = new LRUCache<string, Promise<readonly number[]>>({ max: KEPT_TEXTS });

  constructor(modelDir: string) {
    this.#dir = modelDir;
  }

  async of(text: string): Promise<readonly number[]> {
    // Loaded before a vector is kept, so that only vectors (never a failed load) are kept.
    const embedder = await this.#loaded();
    const embed = async () => Array.from((await embedder.embed([text]))[0] ?? []);
    if (text.length > KEPT_TEXT_MAX_LENGTH) return embed();
    let vector = this.#kept.get(text);
    if (!vector) {
      vector = embed();
      this.#kept.set(text, vector);
      // A failed embedding is not kept: the next search asks the model again.
      vector.catch(() => this.#kept.delete(text));
    }
    return vector;
  }

  async #loaded(): Promise<Embedder> {
    try {
      this.#model ??= createEmbedder({ modelDir: this.#dir });
      return await this.#model;
    } catch (error) {
      this.#model = undefined;
      const cause = error instanceof Error ? error.message.slice(0, 200) : 'unknown error';
      throw new ApiError(503, 'search_unavailable', `the embedding model cannot be loaded: ${cause}`);
    }
  }

  async close(): Promise<void> {
    await (await this.#model?.catch(() => undefined))?.close();
  }
}
