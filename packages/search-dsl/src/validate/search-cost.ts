import { likeShape } from '../compile/opensearch/like-pattern.ts';
import { pointer, type SearchProblem } from '../errors.ts';
import { SEARCH_LIMITS } from '../limits.ts';
import type { SearchAggregation, SearchFilter, SearchParams } from '../params/search-params-schema.ts';
import { words } from '../text/words.ts';

/**
 * What a search may cost the engine, in units of about one indexed term lookup (docs/search-cost.md). A `like` whose
 * pattern has a run of three literal characters uses the `wildcard` field's 3-gram index; one without such a run
 * cannot, and the engine checks the pattern against every record of the connector, tens of times an `eq`
 * (docs/benchmarks/code-measurements.md); many `%` in one pattern fail in the engine ("Determinizing automaton ...
 * too many states") and many long patterns exceed its 1024 clauses.
 */
export const SEARCH_BUDGET = Object.freeze({
  /** Units one search may cost. */
  maxCost: 100,
  /** `%` and `_` in one `like` pattern (the substring rule's two included). */
  maxLikeWildcards: 16,
  /** A literal run this long lets the engine narrow a `like` with its 3-gram index (start and end of value count). */
  indexedLiteralRun: 3,
  /** A `like` the 3-gram index narrows, plus one unit per this many literal characters (its n-gram clauses). */
  indexedLike: 2,
  literalsPerUnit: 32,
  /** A `like` the index cannot narrow scans every record of the connector: one per search at most. */
  scanLike: 50,
  scanLikePerWildcard: 2,
  /** Per word: `fuzzy` expands each word to up to 1024 close terms; `keyword` looks each up once. */
  fuzzyWord: 4,
  keywordWord: 1,
  /** `in`: one unit, and one more per this many values. */
  inValuesPerUnit: 64,
  /** `any` runs a nested query per matching record. */
  any: 2,
  /** Aggregations: `count_by` one unit plus one per 100 buckets, a histogram 5 (up to 10,000 buckets), a metric 1. */
  countByBucketsPerUnit: 100,
  histogram: 5,
  metric: 1,
});

/** One costed part of a search: its JSON pointer into the params, its units, and why. */
export interface CostPart {
  readonly path: string;
  readonly cost: number;
  readonly why: string;
}

export interface SearchCost {
  readonly total: number;
  /** The leaves and aggregations, costliest first. */
  readonly parts: readonly CostPart[];
  /** Parts over a limit of their own (a `like` with too many wildcards), whatever the total. */
  readonly problems: readonly SearchProblem[];
}

/**
 * The cost of validated search params (a pure function of the request: no engine, no data). Walks the request's
 * own tree, so each part is named by the JSON pointer the caller wrote.
 */
export function searchCost(params: Pick<SearchParams, 'query' | 'aggregate'>): SearchCost {
  const parts: CostPart[] = [];
  const problems: SearchProblem[] = [];
  if (params.query.filter) costFilter(params.query.filter, ['query', 'filter'], parts, problems);
  for (const [name, aggregation] of Object.entries(params.aggregate ?? {})) {
    parts.push(costAggregation(aggregation, ['aggregate', name]));
  }
  parts.sort((a, b) => b.cost - a.cost);
  return { total: parts.reduce((sum, part) => sum + part.cost, 0), parts, problems };
}

/** The problems that make a search too costly (empty: within budget), each naming its part and the limit. */
export function overBudget(cost: SearchCost): SearchProblem[] {
  if (cost.problems.length > 0) return [...cost.problems];
  if (cost.total <= SEARCH_BUDGET.maxCost) return [];
  const over = `the search costs ${cost.total} units, over the budget of ${SEARCH_BUDGET.maxCost}`;
  // The costliest parts first: the ones to change. Five at most, so an `or` of 200 does not list 200.
  return cost.parts.slice(0, 5).map((part) => ({
    path: part.path,
    message: `${over}; this part costs ${part.cost} (${part.why})`,
  }));
}

function costFilter(
  filter: SearchFilter,
  path: readonly (string | number)[],
  parts: CostPart[],
  problems: SearchProblem[],
): void {
  const leaf = (op: string, field: string, cost: number, why: string) =>
    parts.push({ path: pointer([...path, op, field]), cost, why });
  for (const op of ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'contains'] as const) {
    for (const field of Object.keys(filter[op] ?? {})) leaf(op, field, 1, 'one term or range');
  }
  for (const [field, values] of Object.entries(filter.in ?? {})) {
    leaf('in', field, 1 + Math.ceil(values.length / SEARCH_BUDGET.inValuesPerUnit), `${values.length} values`);
  }
  for (const [field, text] of Object.entries(filter.keyword ?? {})) {
    const count = words(text).length;
    leaf('keyword', field, Math.max(1, count * SEARCH_BUDGET.keywordWord), `${count} words`);
  }
  for (const [field, text] of Object.entries(filter.fuzzy ?? {})) {
    const count = words(text).length;
    leaf('fuzzy', field, Math.max(1, count * SEARCH_BUDGET.fuzzyWord), `${count} words, each expanded to close terms`);
  }
  for (const [field, pattern] of Object.entries(filter.like ?? {})) {
    const shape = likeShape(pattern);
    if (shape.wildcards > SEARCH_BUDGET.maxLikeWildcards) {
      problems.push({
        path: pointer([...path, 'like', field]),
        message: `a like pattern has at most ${SEARCH_BUDGET.maxLikeWildcards} wildcards (% and _); this one has ${shape.wildcards}`,
      });
    }
    if (shape.longestLiteralRun >= SEARCH_BUDGET.indexedLiteralRun) {
      const cost = SEARCH_BUDGET.indexedLike + Math.floor(shape.literals / SEARCH_BUDGET.literalsPerUnit);
      leaf('like', field, cost, `${shape.literals} literal characters`);
    } else {
      const cost = SEARCH_BUDGET.scanLike + SEARCH_BUDGET.scanLikePerWildcard * shape.wildcards;
      leaf(
        'like',
        field,
        cost,
        `no run of ${SEARCH_BUDGET.indexedLiteralRun} literal characters, so every record is checked`,
      );
    }
  }
  for (const [field, condition] of Object.entries(filter.any ?? {})) {
    leaf('any', field, SEARCH_BUDGET.any, 'a nested query');
    costFilter(condition, [...path, 'any', field], parts, problems);
  }
  if (filter.not) costFilter(filter.not, [...path, 'not'], parts, problems);
  for (const op of ['and', 'or'] as const) {
    filter[op]?.forEach((condition, i) => {
      costFilter(condition, [...path, op, i], parts, problems);
    });
  }
}

function costAggregation(aggregation: SearchAggregation, path: readonly string[]): CostPart {
  if ('count_by' in aggregation) {
    const size = aggregation.size ?? SEARCH_LIMITS.defaultCountBySize;
    const cost = 1 + Math.ceil(size / SEARCH_BUDGET.countByBucketsPerUnit);
    return { path: pointer([...path, 'count_by']), cost, why: `${size} buckets` };
  }
  if ('histogram' in aggregation) {
    return { path: pointer([...path, 'histogram']), cost: SEARCH_BUDGET.histogram, why: 'a bucket per interval' };
  }
  const [kind] = Object.keys(aggregation);
  return { path: pointer([...path, kind ?? '']), cost: SEARCH_BUDGET.metric, why: 'one value' };
}
