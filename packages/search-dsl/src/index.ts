export * from './ast/aggregations.ts';
export { flattenLogic } from './ast/flatten-logic.ts';
export * from './ast/nodes.ts';
export { compileAggregations } from './compile/opensearch/compile-aggregations.ts';
export { compileFilter, type QueryClause } from './compile/opensearch/compile-filter.ts';
export { compileLookup, type KeyLookup } from './compile/opensearch/compile-lookup.ts';
export {
  type CompiledSearch,
  type CompileOptions,
  compileSearch,
  copyScope,
  type PageContext,
  type SearchBody,
} from './compile/opensearch/compile-search.ts';
export {
  type CursorBinding,
  type CursorKey,
  decodeCursor,
  encodeCursor,
  hashQuery,
  type SearchAfter,
} from './cursor/cursor.ts';
export { isSearchQueryError, type SearchErrorCode, type SearchProblem, SearchQueryError } from './errors.ts';
export {
  AGGREGATION_KEYS,
  type FieldCapability,
  type LeafOperator,
  type ScopeCapabilities,
  searchCapabilities,
} from './fields/capabilities.ts';
export { type FieldRef, type FieldScope, INTERNAL_FIELDS, resolveField, rootScope } from './fields/field-resolution.ts';
export { parseInstantMillis, toInstant } from './fields/values.ts';
export { SEARCH_LIMITS } from './limits.ts';
export {
  type IndexDocument,
  type IndexDocumentOptions,
  indexDocumentId,
  toIndexDocument,
} from './mapping/index-document.ts';
export { buildIndexMapping, type IndexMapping } from './mapping/index-mapping.ts';
export { parseSearchParams } from './params/parse-search-params.ts';
export {
  HISTOGRAM_INTERVALS,
  type HistogramInterval,
  SearchAggregateSchema,
  type SearchAggregation,
  SearchAggregationSchema,
  type SearchFilter,
  SearchFilterSchema,
  type SearchParams,
  type SearchParamsInput,
  SearchParamsSchema,
  SearchQuerySchema,
  SearchSortSchema,
} from './params/search-params-schema.ts';
export { type PlanSearchOptions, planSearch, type SearchPlan } from './plan-search.ts';
export {
  type JsonSpan,
  keyEquals,
  type MemberReader,
  parseSpan,
  skipWhitespace,
  valueEnd,
  walkArray,
  walkObject,
} from './results/json-spans.ts';
export { lookupAnswerAsSearch } from './results/lookup-answer.ts';
export { emptyAggregations, readAggregations } from './results/read-aggregations.ts';
export {
  emptySearchPage,
  projectSource,
  readSearchPage,
  type SearchPage,
  type SearchRecord,
  type SearchTotal,
  searchProblemOf,
} from './results/read-search-page.ts';
export { AggResultSchema, SearchTotalSchema } from './results/search-answer-schema.ts';
export { searchPageBody, searchPageJson } from './results/search-page-json.ts';
export {
  planSql,
  runSqlJson,
  type SqlEngine,
  type SqlPage,
  type SqlRequest,
  SqlRequestSchema,
} from './sql/run-sql.ts';
export { isSqlQueryError, type SqlProblem, SqlQueryError } from './sql/sql-error.ts';
export type { SqlColumn, SqlTables } from './sql/sql-tree.ts';
export { type CostPart, overBudget, SEARCH_BUDGET, type SearchCost, searchCost } from './validate/search-cost.ts';
export {
  type SortKey,
  type ValidatedSearch,
  type ValidateOptions,
  validateSearch,
} from './validate/validate-search.ts';
