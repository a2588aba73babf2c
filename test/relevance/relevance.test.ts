import { describe, expect, it } from 'vitest';
import { installedModelDir, measureRelevance } from './relevance-runner.ts';

const url = (process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200').split(',')[0]!.trim();

/**
 * The targets of search by meaning over the whole labelled set (test/relevance/), as `pnpm bench:relevance` measures
 * them (docs/benchmarks/relevance.md): the fusion `query.semantic` answers with ranks well above the words alone and
 * never below the vectors alone, so the word side earns its place.
 */
describe('relevance of search by meaning (the labelled set)', () => {
  it('ranks hybrid at least 1.15 times the words alone and never below the vectors alone (nDCG@10)', async () => {
    const scores = await measureRelevance(url, process.env.EMBEDDING_MODEL_DIR ?? installedModelDir());
    expect(scores.queries).toBeGreaterThan(300);
    expect(scores.ndcg.hybrid).toBeGreaterThanOrEqual(1.15 * scores.ndcg.text);
    expect(scores.ndcg.hybrid).toBeGreaterThanOrEqual(scores.ndcg.vector);
    expect(scores.recall.hybrid).toBeGreaterThanOrEqual(scores.recall.vector);
  }, 180_000);
});
