import { createEmbedder, type Embedder } from '@conduit/embeddings';
import { ApiError } from '../problem.ts';
import { KeptValues } from './kept-values.ts';

/** Texts whose vectors are kept: agents repeat their questions while they page and refine filters. */
const KEPT_TEXTS = 1024;

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
  readonly #kept = new KeptValues<Promise<readonly number[]>>(KEPT_TEXTS, 4096);

  constructor(modelDir: string) {
    this.#dir = modelDir;
  }

  async of(text: string): Promise<readonly number[]> {
    // Loaded before a vector is kept, so that only vectors (never a failed load) are kept.
    const embedder = await this.#loaded();
    return this.#kept.get(text, async () => Array.from((await embedder.embed([text]))[0] ?? []));
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
