import type { TextEmbeddingsRepository } from '@conduit/db';
import {
  EMBED_JOB_NAME,
  EMBED_JOB_TEXTS,
  type EmbedTextsJob,
  embedQueueName,
  type RedisClient,
  retryingQueue,
} from '@conduit/queues';
import type { UnembeddedText, VectorSource, VectorTarget } from '@conduit/search-store';

/**
 * The copy's vectors (search by meaning, docs/search.md): those computed before come from Postgres by text hash; the
 * texts without one go to the worker's embedding queue, a job per EMBED_JOB_TEXTS, so a write never waits for the
 * model.
 */
export class CopyVectors implements VectorSource {
  readonly #embeddings: TextEmbeddingsRepository;
  readonly #queue: ReturnType<typeof retryingQueue>;
  readonly #model: string;

  constructor(embeddings: TextEmbeddingsRepository, redis: RedisClient, namespace: string, model: string) {
    this.#embeddings = embeddings;
    this.#model = model;
    // A failed embedding (the model missing, the engine away) retries for about an hour before it is given up.
    this.#queue = retryingQueue(redis, embedQueueName(namespace), { attempts: 12, firstDelayMs: 1000 });
  }

  known(target: VectorTarget, hashes: readonly string[]): Promise<ReadonlyMap<string, ArrayLike<number>>> {
    return this.#embeddings.find({ connectorId: target.connectorId, model: this.#model }, hashes);
  }

  async unembedded(target: VectorTarget, texts: readonly UnembeddedText[]): Promise<void> {
    // A job carries record texts: gone from Redis once done, and a failed one kept a day for inspection only.
    const opts = { removeOnComplete: true, removeOnFail: { age: 86_400 } };
    const jobs: { name: string; data: EmbedTextsJob; opts: typeof opts }[] = [];
    for (let start = 0; start < texts.length; start += EMBED_JOB_TEXTS) {
      jobs.push({
        name: EMBED_JOB_NAME,
        data: { ...target, texts: texts.slice(start, start + EMBED_JOB_TEXTS) },
        opts,
      });
    }
    if (jobs.length > 0) await this.#queue.addBulk(jobs);
  }

  close(): Promise<void> {
    return this.#queue.close();
  }
}
