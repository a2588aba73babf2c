/**
 * `pnpm bench:relevance`: the labelled retrieval set (test/relevance/) ranked three ways over a fresh index — words
 * only, vectors only, and the fusion `query.semantic` answers with — with nDCG@10 and recall@10 of each, hybrid by
 * query kind, and the ratio hybrid / words that docs/benchmarks/relevance.md tracks. OPENSEARCH_URL (first node)
 * and EMBEDDING_MODEL_DIR as the platform reads them.
 */
import { installedModelDir, measureRelevance, RANKINGS } from '../relevance/relevance-runner.ts';

const url = (process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200').split(',')[0]!.trim();
const started = performance.now();
const scores = await measureRelevance(url, process.env.EMBEDDING_MODEL_DIR ?? installedModelDir());
const f = (n: number) => n.toFixed(3);
console.log(
  `relevance over ${scores.queries} queries (+ negatives), ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
console.log('ranking   nDCG@10  recall@10');
for (const ranking of RANKINGS) {
  console.log(`${ranking.padEnd(9)} ${f(scores.ndcg[ranking]).padStart(7)}  ${f(scores.recall[ranking]).padStart(9)}`);
}
console.log(
  `hybrid / text nDCG@10: ${f(scores.ndcg.hybrid / scores.ndcg.text)}x; hybrid - vector: ${f(scores.ndcg.hybrid - scores.ndcg.vector)}`,
);
console.log(
  `hybrid nDCG@10 by kind: ${Object.entries(scores.hybridByKind)
    .map(([k, v]) => `${k} ${f(v)}`)
    .join(', ')}`,
);
console.log(`negatives: median best cosine ${f(scores.negativeMedianTopSimilarity)}`);
