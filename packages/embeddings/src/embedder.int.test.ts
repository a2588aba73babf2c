import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder, type Embedder } from './embedder.ts';
import { createWordPieceTokenizer } from './wordpiece-tokenizer.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../../..');
// Written by golden/golden-vectors.sh with the artifact's own Java class (langchain4j) on a JDK.
const golden = readFileSync(join(here, '../golden/golden-vectors.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as { text: string; tokens: string[]; vector: number[] });
// The model infra/scripts/embedding-model.sh installs (./dev test runs it).
const modelDir = join(root, '.data/models/all-minilm-l6-v2-q');

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] ?? 0) * (b[i] ?? 0);
    na += (a[i] ?? 0) ** 2;
    nb += (b[i] ?? 0) ** 2;
  }
  return dot / Math.sqrt(na * nb);
}

describe('embedder', () => {
  let embedder: Embedder;
  beforeAll(async () => {
    embedder = await createEmbedder({ modelDir });
  });
  afterAll(() => embedder.close());

  it('tokenizes as the Hugging Face tokenizer does (accents, punctuation, subwords, [CLS]/[SEP])', async () => {
    const json = JSON.parse(readFileSync(join(modelDir, 'tokenizer.json'), 'utf8')) as {
      model: { vocab: Record<string, number> };
    };
    const tokenizer = createWordPieceTokenizer(json, 256);
    for (const g of golden) {
      expect(tokenizer.encode(g.text), g.text).toEqual(g.tokens.map((token) => json.model.vocab[token]));
    }
    const long = tokenizer.encode('word '.repeat(400));
    expect(long).toHaveLength(256);
    expect(long.at(-1)).toBe(json.model.vocab['[SEP]']);
  });

  it('matches the reference vectors of the Java class', async () => {
    expect(embedder.dimensions).toBe(384);
    const vectors = await embedder.embed(golden.map((g) => g.text));
    const similarities = golden.map((g, i) => cosine(vectors[i] ?? [], g.vector));
    // Same tokens, same pooling, and onnxruntime 1.22 as the Java class runs (its 1.20 and 1.22 agree): the int8
    // kernels round alike, so every vector agrees to 1e-5 (onnxruntime 1.30's moved some to 0.994).
    for (const [i, similarity] of similarities.entries()) expect(similarity, golden[i]?.text).toBeGreaterThan(0.9999);
  });

  it('gives a text the same vector alone as among others, with unit length', async () => {
    const [alone] = await embedder.embed(['Database connection pool exhausted']);
    const batch = await embedder.embed(['x', 'Database connection pool exhausted', 'a much longer text '.repeat(20)]);
    expect(cosine(alone ?? [], batch[1] ?? [])).toBeGreaterThan(0.99999);
    const norm = Math.sqrt(Array.from(alone ?? []).reduce((s, v) => s + v * v, 0));
    expect(norm).toBeCloseTo(1, 5);
  });

  it('places a paraphrase nearer than an unrelated text', async () => {
    const [query, paraphrase, unrelated] = await embedder.embed([
      'the site is down and nobody can pay',
      'Checkout outage: payments failing for EU customers',
      'Quarterly roadmap planning document',
    ]);
    expect(cosine(query ?? [], paraphrase ?? [])).toBeGreaterThan(cosine(query ?? [], unrelated ?? []) + 0.1);
  });
});
