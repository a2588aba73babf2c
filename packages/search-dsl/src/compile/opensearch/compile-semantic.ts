import { decodeCursor } from '../../cursor/cursor.ts';
import { SearchQueryError } from '../../errors.ts';
import { INTERNAL_FIELDS } from '../../fields/field-resolution.ts';
import { SEARCH_LIMITS } from '../../limits.ts';
import { ENGLISH_SUBFIELD, VECTOR_FIELDS } from '../../semantic/vector-fields.ts';
import type { SemanticRanking, ValidatedSearch } from '../../validate/validate-search.ts';
import { compileFilter, type QueryClause } from './compile-filter.ts';
import { type CompileOptions, copyScope, type PageContext, type SearchBody } from './compile-search.ts';

/**
 * A search by meaning as two engine searches over the same filtered records, fused in `fuseSemantic`:
 * - `vectorBody(vector)`: k-NN on the records' vectors, the organization's connector and the filter applied inside
 *   the vector query (the Lucene engine filters while it walks the graph, so k hits come back whatever the filter
 *   keeps: https://opensearch.org/docs/2.19/search-plugins/knn/filter-search-knn/);
 * - `textBody`: the filtered records scored by the words of the text on the embedded fields' English subfields
 *   (stopwords dropped, words stemmed, misspellings forgiven), which also counts the records that match the filter
 *   (`meta.total`).
 * Each brings its best `depth`; pages are slices of the fused ranking, the cursor holding where the next begins.
 */
export type SemanticPlan = {
  readonly ranking: SemanticRanking;
  /** Where this page begins in the fused ranking (from the cursor). */
  readonly offset: number;
  /** Hits each side brings: this page and one more, at most SEARCH_LIMITS.maxSemanticDepth. */
  readonly depth: number;
  readonly textBody: SearchBody;
  vectorBody(vector: readonly number[]): Record<string, unknown>;
};

export function compileSemantic(
  search: ValidatedSearch,
  ranking: SemanticRanking,
  options: CompileOptions,
  page: PageContext,
): SemanticPlan {
  const offset =
    search.cursor === undefined ? 0 : offsetOf(decodeCursor(search.cursor, page.binding, options.cursorKey, 1));
  const depth = Math.min(offset + search.limit + 1, SEARCH_LIMITS.maxSemanticDepth);
  const scope = copyScope(options.connectorId);
  const filter: QueryClause = {
    bool: {
      filter: [...scope.filter, ...(search.filter.kind === 'MatchAllNode' ? [] : [compileFilter(search.filter)])],
      must_not: scope.must_not,
    },
  };
  const includes = search.wholeRecord
    ? [INTERNAL_FIELDS.key, INTERNAL_FIELDS.record]
    : [INTERNAL_FIELDS.key, ...search.fields.map((f) => `${INTERNAL_FIELDS.record}.${f}`)];
  const textBody: SearchBody = {
    size: depth,
    query: {
      bool: {
        ...(filter.bool as Record<string, unknown>),
        // `should` beside a filter is optional: every filtered record comes back (the total counts them), and the
        // records the words do not match score 0, which fuseSemantic leaves out of the word ranking. The words are
        // the text's own after the English analyzer (no stopwords), and a record must have every one of them in one
        // of its fields, each word forgiving a typo or two (`fuzziness: AUTO`): a record sharing some words with a
        // text but not its subject is no evidence, and ranked first among the words it would outweigh the vectors'
        // best; a misspelt word is where words add most to the model, whose word pieces of a typo no longer mean
        // the word (docs/benchmarks/relevance.md has the comparison).
        // https://opensearch.org/docs/2.19/query-dsl/full-text/multi-match/
        should: [
          {
            multi_match: {
              query: ranking.text,
              fields: ranking.fields.map((f) => `${f}.${ENGLISH_SUBFIELD}`),
              type: 'best_fields',
              operator: 'and',
              fuzziness: 'AUTO',
            },
          },
        ],
      },
    },
    sort: [{ _score: { order: 'desc' } }, { [INTERNAL_FIELDS.key]: { order: 'asc' } }],
    _source: { includes },
    track_total_hits: SEARCH_LIMITS.exactTotalUpTo,
  };
  return {
    ranking,
    offset,
    depth,
    textBody,
    vectorBody: (vector) => ({
      size: depth,
      query: { knn: { [VECTOR_FIELDS.vector]: { vector, k: depth, filter } } },
      // The score and the record key as sort values: the search transport drops `_score` and `_id`.
      sort: textBody.sort,
      _source: { includes },
    }),
  };
}

function offsetOf(after: readonly unknown[]): number {
  const [offset] = after;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0)
    throw new SearchQueryError('invalid_cursor', [{ path: '/cursor', message: 'malformed cursor' }]);
  return offset;
}
