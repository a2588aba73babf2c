import { z } from 'zod';
import type { PageContext } from '../compile/opensearch/compile-search.ts';
import type { SemanticPlan } from '../compile/opensearch/compile-semantic.ts';
import { readSearchPage, type SearchPage } from './read-search-page.ts';

/**
 * Reciprocal rank fusion's constant: a record's score is the sum over the rankings of 1 / (RRF_K + its rank), so a
 * record near the top of both beats one first in only one, and no side's raw scores (cosine against BM25) need to
 * be comparable. 60 is the value of the method's paper, which OpenSearch's own hybrid search also uses.
 * https://plg.uwaterloo.ca/~gvcormac/cormacksigir09-rrf.pdf
 */
const RRF_K = 60;

/**
 * A hit of either side, sorted by score then record key (compileSemantic): its score and key are its sort values,
 * since the search transport has the engine drop `_id` and `_score` from answers.
 */
const Hit = z.object({
  _source: z.record(z.string(), z.unknown()).optional(),
  sort: z.tuple([z.number(), z.union([z.string(), z.number()])]),
});
const Answer = z.object({
  took: z.number().optional(),
  hits: z
    .object({
      total: z.object({ value: z.number(), relation: z.enum(['eq', 'gte']) }).optional(),
      // The engine leaves `hits` out of a filtered answer when nothing matched.
      hits: z.array(Hit).default([]),
    })
    .optional(),
});
type Hit = z.infer<typeof Hit>;

/** A page ranked by meaning, with each record's fused score in `meta.scores` (same order as `data`). */
export type SemanticPage = SearchPage & { readonly meta: SearchPage['meta'] & { readonly scores: number[] } };

/**
 * Fuses the two rankings of a search by meaning (compileSemantic) into its page: the vector side's hits by
 * similarity (those under `min_score` left out), the word side's by score (those without any word left out), summed
 * by reciprocal rank, ties by record key. With `min_score`, a record must also be close enough in meaning.
 */
export function fuseSemantic(
  textAnswer: unknown,
  vectorAnswer: unknown,
  plan: SemanticPlan,
  page: PageContext,
): SemanticPage {
  const text = Answer.parse(textAnswer);
  const vector = Answer.parse(vectorAnswer);
  const minScore = plan.ranking.minScore;
  // Lucene's cosine score is (1 + cosine) / 2: https://opensearch.org/docs/2.19/search-plugins/knn/approximate-knn/
  const similar = (vector.hits?.hits ?? []).filter((h) => minScore === undefined || 2 * h.sort[0] - 1 >= minScore);
  const worded = (text.hits?.hits ?? []).filter((h) => h.sort[0] > 0);
  const fused = new Map<string, { hit: Hit; score: number }>();
  const add = (hits: readonly Hit[], only?: ReadonlySet<string>) =>
    hits.forEach((hit, rank) => {
      const key = keyOf(hit);
      if (only && !only.has(key)) return;
      const entry = fused.get(key) ?? { hit, score: 0 };
      entry.score += 1 / (RRF_K + rank + 1);
      fused.set(key, entry);
    });
  add(similar);
  // Both rankings count alike: the word side ranks only records with every word of the text (compileSemantic), so
  // what it ranks is evidence, not noise to be damped (docs/benchmarks/relevance.md).
  add(worded, minScore === undefined ? undefined : new Set(similar.map(keyOf)));
  const ranked = [...fused.values()].sort((a, b) => b.score - a.score || keyOf(a.hit).localeCompare(keyOf(b.hit)));
  const window = ranked.slice(plan.offset, plan.offset + page.limit + 1);
  const total =
    minScore === undefined && text.hits?.total ? text.hits.total : { value: ranked.length, relation: 'eq' as const };
  const read = readSearchPage(
    {
      took: Math.max(text.took ?? 0, vector.took ?? 0),
      hits: {
        // The ranking ends at the depth both sides brought: no page past it.
        total,
        hits: window.map(({ hit }, i) => ({ _source: hit._source, sort: [plan.offset + i + 1] })),
      },
    },
    page,
  );
  const scores = window.slice(0, page.limit).map(({ score }) => Math.round(score * 1e6) / 1e6);
  return { data: read.data, meta: { ...read.meta, scores } };
}

function keyOf(hit: Hit): string {
  return String(hit.sort[1]);
}
