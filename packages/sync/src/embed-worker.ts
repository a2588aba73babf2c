import type { TextEmbeddingsRepository } from '@conduit/db';
import type { Logger } from '@conduit/observability';
import {
  duplicateRedis,
  EMBED_JOB_NAME,
  EmbedTextsJob,
  embedQueueName,
  queuePrefix,
  type RedisClient,
} from '@conduit/queues';
import type { CopyWriter } from '@conduit/search-store';
import { type Job, Worker } from 'bullmq';

/** The model, loaded on the first job (a worker without embedded entities never loads it). */
export interface TextEmbedder {
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export interface EmbedWorkerDeps {
  readonly namespace: string;
  readonly logger: Logger;
  readonly redis: RedisClient;
  /** The copy's writer: sets the vectors on the documents that still hold their texts. */
  readonly copy: CopyWriter;
  readonly textEmbeddings: TextEmbeddingsRepository;
  /** The name stored vectors carry (the model folder's). */
  readonly model: string;
  readonly embedder: () => Promise<TextEmbedder>;
}

export interface EmbedWorker {
  readonly worker: Worker;
  close(): Promise<void>;
}

/**
 * The BullMQ worker of the embedding queue (search by meaning, docs/search.md): one job at a time, since the model
 * runs on one core and the sync's jobs keep the others. Each job embeds the texts no earlier job embedded (by
 * hash), stores the vectors, and sets them on the documents that still hold those texts.
 */
export function startEmbedWorker(deps: EmbedWorkerDeps): EmbedWorker {
  const connection = duplicateRedis(deps.redis);
  connection.on('error', (error: Error) => deps.logger.warn('redis connection error', { error: error.message }));
  const name = embedQueueName(deps.namespace);
  const worker = new Worker(
    name,
    async (job) => {
      if (job.name === EMBED_JOB_NAME) return embedTexts(job, deps);
      throw new Error(`unknown job ${job.name}`);
    },
    { connection, prefix: queuePrefix(name), concurrency: 1 },
  );
  worker.on('error', (error) => deps.logger.error('embedding worker error', { error }));
  return {
    worker,
    async close() {
      await worker.close();
      connection.disconnect();
    },
  };
}

/** One job: what it embedded (texts new to the connector) and how many documents took a vector. */
export async function embedTexts(
  job: Pick<Job, 'data'>,
  deps: EmbedWorkerDeps,
): Promise<{ embedded: number; set: number }> {
  const data = EmbedTextsJob.parse(job.data);
  const scope = { connectorId: data.connectorId, model: deps.model };
  const textByHash = new Map(data.texts.map((t) => [t.hash, t.text]));
  const vectors = await deps.textEmbeddings.find(scope, [...textByHash.keys()]);
  const missing = [...textByHash].filter(([hash]) => !vectors.has(hash));
  if (missing.length > 0) {
    const embedder = await deps.embedder();
    const computed = await embedder.embed(missing.map(([, text]) => text));
    const saved = missing.map(([hash], i) => ({ hash, vector: computed[i] ?? new Float32Array() }));
    await deps.textEmbeddings.save(scope, saved);
    for (const { hash, vector } of saved) vectors.set(hash, vector);
  }
  const updates = data.texts.flatMap((t) => {
    const vector = vectors.get(t.hash);
    return vector ? [{ id: t.id, hash: t.hash, vector }] : [];
  });
  const set = await deps.copy.setVectors(data.connectorType, data.entity, data.connectorId, updates);
  return { embedded: missing.length, set };
}
