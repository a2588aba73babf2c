/**
 * `pnpm bench:embeddings`: short texts embedded per second on one core (one ONNX thread), one text per run (the
 * worker's setting) and in batches of 8 and 32, median of three rounds of 400 texts each.
 */
import { createEmbedder } from '@conduit/embeddings';
import { installedModelDir } from '../relevance/relevance-runner.ts';

const texts = Array.from(
  { length: 400 },
  (_, i) => `Incident ${i}: checkout latency spike in region ${i % 7} after the deploy of the payments service`,
);
const modelDir = process.env.EMBEDDING_MODEL_DIR ?? installedModelDir();
for (const batchSize of [1, 8, 32]) {
  const embedder = await createEmbedder({ modelDir, batchSize, threads: 1 });
  await embedder.embed(texts.slice(0, 20));
  const rates: number[] = [];
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    await embedder.embed(texts);
    rates.push(texts.length / ((performance.now() - started) / 1000));
  }
  rates.sort((a, b) => a - b);
  console.log(
    `batch ${String(batchSize).padStart(2)}: ${rates[1]!.toFixed(0)} texts/s (rounds ${rates.map((r) => r.toFixed(0)).join(', ')})`,
  );
  await embedder.close();
}
