/**
 * `pnpm bench:embeddings`: short texts embedded per second on one core (one ONNX thread), one text per run (the
 * worker's setting) and in batches of 8 and 32, median of three rounds of 400 texts each. Two rates per round: over
 * the wall clock, and over the CPU time the process spent (user + system), which is the rate of one core of its
 * own: on a shared machine the wall-clock rate is that of the share the process got. The load average is printed.
 */
import { loadavg } from 'node:os';
import { createEmbedder } from '@conduit/embeddings';
import { installedModelDir } from '../relevance/relevance-runner.ts';

const texts = Array.from(
  { length: 400 },
  (_, i) => `Incident ${i}: checkout latency spike in region ${i % 7} after the deploy of the payments service`,
);
const modelDir = process.env.EMBEDDING_MODEL_DIR ?? installedModelDir();
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(
  `load average before: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
for (const batchSize of [1, 8, 32]) {
  const embedder = await createEmbedder({ modelDir, batchSize, threads: 1 });
  await embedder.embed(texts.slice(0, 20));
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let round = 0; round < 3; round++) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await embedder.embed(texts);
    const used = process.cpuUsage(cpuBefore);
    wall.push(texts.length / ((performance.now() - started) / 1000));
    cpu.push(texts.length / ((used.user + used.system) / 1e6));
  }
  console.log(
    `batch ${String(batchSize).padStart(2)}: ${median(wall).toFixed(0)} texts/s wall (rounds ${wall.map((r) => r.toFixed(0)).join(', ')}), ${median(cpu).toFixed(0)} texts per CPU-second (rounds ${cpu.map((r) => r.toFixed(0)).join(', ')})`,
  );
  await embedder.close();
}
console.log(
  `load average after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
