import type { FieldMap } from '@conduit/connectors';
import { compileLookup, type KeyLookup } from './compile/opensearch/compile-lookup.ts';
import { type CompiledSearch, type CompileOptions, compileSearch } from './compile/opensearch/compile-search.ts';
import { parseSearchParams } from './params/parse-search-params.ts';
import { type ValidatedSearch, validateSearch } from './validate/validate-search.ts';

export type PlanSearchOptions = CompileOptions & {
  /** The entity's searchable fields (catalog). */
  readonly searchable: FieldMap;
  /** The entity's record key (documents carry it as `_key`, the sort tie-breaker). */
  readonly recordKey: string;
};

export type SearchPlan = CompiledSearch & {
  readonly search: ValidatedSearch;
  /** When the search only asks for records by key: the engine's multi-get answers it (see compileLookup). */
  readonly lookup: KeyLookup | undefined;
};

/**
 * All stages at once: parse → validate → compile. Send `body` to the entity's index, then
 * `readSearchPage(response.body, plan.page)`.
 *
 * @throws SearchQueryError (`invalid_filter` or `invalid_cursor`) listing every problem with its JSON pointer.
 * @example
 * const plan = planSearch(params, { searchable, recordKey: 'id', connectorId, entity: 'customers', cursorKey });
 * const page = readSearchPage((await client.search({ index, body: plan.body })).body, plan.page);
 */
export function planSearch(input: unknown, options: PlanSearchOptions): SearchPlan {
  const search = validateSearch(parseSearchParams(input), { searchable: options.searchable });
  const compiled = compileSearch(search, options);
  const lookup = compileLookup(search, { ...options, includes: compiled.body._source.includes });
  return { ...compiled, search, lookup };
}
