import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { createWordPieceTokenizer } from './wordpiece-tokenizer.ts';

/** Turns texts into unit-length sentence vectors (cosine similarity is then a dot product). */
export interface Embedder {
  readonly dimensions: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export interface EmbedderOptions {
  /** A folder with `model.onnx` (a BERT-style encoder with input_ids, attention_mask, token_type_ids and
   *  last_hidden_state) and its `tokenizer.json`: infra/scripts/embedding-model.sh installs all-MiniLM-L6-v2. */
  modelDir: string;
  /** Texts per ONNX run. One by default: the quantized model scales its int8 activations over the whole input
   *  tensor (DynamicQuantizeLinear), so in a batch a text's vector depends on its neighbours (cosine ≈ 0.99 to
   *  its vector alone) for ≈ 1.3× the throughput; docs/benchmarks/embeddings.md has the figures. */
  batchSize?: number;
  /** Tokens per text including [CLS] and [SEP]; longer texts are cut (the model was trained on 256). */
  maxTokens?: number;
  /** Threads per ONNX run; one by default, so that a worker's embedding leaves the other cores to the sync. */
  threads?: number;
}

const DEFAULT_BATCH = 1;
const DEFAULT_MAX_TOKENS = 256;

/**
 * Loads the model once. Vectors are the mean of the last hidden states over the real tokens (attention mask),
 * L2-normalised, which is how sentence-transformers pools all-MiniLM-L6-v2.
 * https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2
 *
 * @example
 *   const embedder = await createEmbedder({ modelDir: '.data/models/all-minilm-l6-v2-q' });
 *   const [vector] = await embedder.embed(['checkout outage']);
 */
export async function createEmbedder(options: EmbedderOptions): Promise<Embedder> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH;
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  const threads = options.threads ?? 1;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error('batchSize must be a positive integer');
  const tokenizerJson: unknown = JSON.parse(await readFile(join(options.modelDir, 'tokenizer.json'), 'utf8'));
  const tokenizer = createWordPieceTokenizer(tokenizerJson, maxTokens);
  const session = await InferenceSession.create(join(options.modelDir, 'model.onnx'), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const [probe] = await runBatch(session, [tokenizer.encode('')]);
  const dimensions = probe?.length ?? 0;

  return {
    dimensions,
    async embed(texts) {
      const encoded = texts.map((text) => tokenizer.encode(text));
      const order = encoded.map((_, i) => i).sort((a, b) => (encoded[a]?.length ?? 0) - (encoded[b]?.length ?? 0));
      const out = new Array<Float32Array>(texts.length);
      for (let start = 0; start < order.length; start += batchSize) {
        const slice = order.slice(start, start + batchSize);
        const vectors = await runBatch(
          session,
          slice.map((i) => encoded[i] ?? []),
        );
        slice.forEach((i, k) => {
          const vector = vectors[k];
          if (vector) out[i] = vector;
        });
      }
      return out;
    },
    async close() {
      await session.release();
    },
  };
}

async function runBatch(session: InferenceSession, batch: readonly number[][]): Promise<Float32Array[]> {
  const rows = batch.length;
  const width = Math.max(...batch.map((ids) => ids.length));
  const ids = new BigInt64Array(rows * width);
  const mask = new BigInt64Array(rows * width);
  batch.forEach((tokens, r) => {
    tokens.forEach((token, c) => {
      ids[r * width + c] = BigInt(token);
      mask[r * width + c] = 1n;
    });
  });
  const shape = [rows, width];
  const result = await session.run({
    input_ids: new Tensor('int64', ids, shape),
    attention_mask: new Tensor('int64', mask, shape),
    token_type_ids: new Tensor('int64', new BigInt64Array(rows * width), shape),
  });
  const hidden = result.last_hidden_state;
  if (!hidden || !(hidden.data instanceof Float32Array)) throw new Error('the model returned no last_hidden_state');
  const dims = hidden.dims[2] ?? 0;
  return batch.map((tokens, r) => meanPoolNormalised(hidden.data as Float32Array, r, width, dims, tokens.length));
}

/** Mean over the first `length` token states of row `r` (padding comes after them), scaled to unit length. */
function meanPoolNormalised(data: Float32Array, r: number, width: number, dims: number, length: number): Float32Array {
  const vector = new Float32Array(dims);
  for (let t = 0; t < length; t++) {
    const base = (r * width + t) * dims;
    for (let d = 0; d < dims; d++) vector[d] = (vector[d] ?? 0) + (data[base + d] ?? 0);
  }
  let norm = 0;
  for (let d = 0; d < dims; d++) {
    const mean = (vector[d] ?? 0) / length;
    vector[d] = mean;
    norm += mean * mean;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let d = 0; d < dims; d++) vector[d] = (vector[d] ?? 0) * scale;
  return vector;
}
