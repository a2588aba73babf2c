import type { FieldMap } from '@conduit/connectors';
import { compileLookup, type KeyLookup } from './compile/opensearch/compile-lookup.ts';
import { type CompiledSearch, type CompileOptions, compileSearch } from './compile/opensearch/compile-search.ts';
import { compileSemantic, type SemanticPlan } from './compile/opensearch/compile-semantic.ts';
import { SearchQueryError } from './errors.ts';
import { parseSearchParams } from './params/parse-search-params.ts';
import { overBudget, searchCost } from './validate/search-cost.ts';
import { type ValidatedSearch, validateSearch } from './validate/validate-search.ts';

export type PlanSearchOptions = CompileOptions & {
  /** The entity's searchable fields (catalog). */
  readonly searchable: FieldMap;
  /** The entity's record key (documents carry it as `_key`, the sort tie-breaker). */
  readonly recordKey: string;
  /** The entity's embedded fields (the catalog's `embed`), which `query.semantic` ranks by. */
  readonly embed?: readonly string[];
};

export type SearchPlan = CompiledSearch & {
  readonly search: ValidatedSearch;
  /** What the search costs the engine, in budget units (validate/search-cost.ts): the transport sends costly ones alone. */
  readonly cost: number;
  /** When the search only asks for records by key: the engine's multi-get answers it (see compileLookup). */
  readonly lookup: KeyLookup | undefined;
  /**
   * `query.semantic`: the search runs as the plan's two searches, fused by `fuseSemantic`, instead of `body`
   * (which then only serves the cursor's binding).
   */
  readonly semantic: SemanticPlan | undefined;
};

/**
 * All stages at once: parse → validate → compile. Send `body` to the entity's index, then
 * `readSearchPage(response.body, plan.page)`.
 *
 * @throws SearchQueryError (`invalid_filter`, `invalid_cursor`, or `query_too_costly` over the cost budget) listing
 * every problem with its JSON pointer.
 * @example
 * const plan = planSearch(params, { searchable, recordKey: 'id', connectorId, entity: 'customers', cursorKey });
 * const page = readSearchPage((await client.search({ index, body: plan.body })).body, plan.page);
 */
export function planSearch(input: unknown, options: PlanSearchOptions): SearchPlan {
  const search = validateSearch(parseSearchParams(input), {
    searchable: options.searchable,
    ...(options.embed ? { embed: options.embed } : {}),
  });
  // Before compiling: a search over budget never reaches the engine.
  const cost = searchCost(search.params);
  const problems = overBudget(cost);
  if (problems.length > 0) throw new SearchQueryError('query_too_costly', problems);
  if (search.semantic) {
    // The cursor of a ranking by meaning holds where its next page begins; compileSemantic reads it.
    const compiled = compileSearch({ ...search, cursor: undefined }, options);
    const semantic = compileSemantic(search, search.semantic, options, compiled.page);
    return { ...compiled, search, cost: cost.total, lookup: undefined, semantic };
  }
  const compiled = compileSearch(search, options);
  const lookup = compileLookup(search, { ...options, includes: compiled.body._source.includes });
  return { ...compiled, search, cost: cost.total, lookup, semantic: undefined };
}
