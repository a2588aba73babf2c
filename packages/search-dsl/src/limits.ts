/** Hard limits of the search language (docs/search.md). The API reports them in its OpenAPI description. */
export const SEARCH_LIMITS = Object.freeze({
  /** Page size bounds and default (`limit: 0` answers totals and aggregations only). */
  minLimit: 0,
  maxLimit: 10_000,
  defaultLimit: 1000,
  /** Values in one `in` list. */
  maxInValues: 1024,
  /** Nesting of conditions (`and`/`or`/`not`/`any` each add a level; the top condition is level 1). */
  maxDepth: 16,
  /** `query` serialized as JSON, in bytes. */
  maxQueryBytes: 64 * 1024,
  /** Characters of a `like` pattern (the engine caps regular expressions at 1000 characters). */
  maxLikePatternLength: 256,
  /** Words of a `fuzzy` or `keyword` text (each word is a clause; the engine caps clauses at 1024). */
  maxTextWords: 32,
  /** Sort keys in one query (the record-key tie-breaker is added on top). */
  maxSortKeys: 16,
  /** Strings longer than this are kept in results but not indexed for exact match, range and sort. */
  maxExactStringLength: 8191,
  /** `meta.total` counts exactly up to this many matches, then says `exact: false`. */
  exactTotalUpTo: 10_000,
  /** Named aggregations in one search. */
  maxAggregations: 16,
  /** Buckets of a `count_by` (default 10). */
  maxCountBySize: 1000,
  defaultCountBySize: 10,
  /** Buckets of a `histogram` (empty ones included): a year of hours fits, a decade of days too. */
  maxHistogramBuckets: 10_000,
  /** Elements of an array of objects that are indexed for `any` (the rest are kept in results only). */
  maxNestedElements: 1000,
  /** Characters of a `semantic` text (the model reads at most 256 tokens of it). */
  maxSemanticText: 1000,
  /**
   * How deep a search by meaning ranks: each side (vectors, words) brings its best this many, and pages go no
   * further. k-NN's cost grows with k; an agent reads the top few.
   */
  maxSemanticDepth: 1000,
});
