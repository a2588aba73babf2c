export type { Node as FilterNode } from './ast/nodes.ts';
export type { KeyLookup } from './compile/opensearch/compile-lookup.ts';
export { type CompiledSearch, copyScope } from './compile/opensearch/compile-search.ts';
export { decodeCursor, encodeCursor, hashQuery } from './cursor/cursor.ts';
export { isSearchQueryError, type SearchErrorCode, SearchQueryError } from './errors.ts';
export {
  type FieldCapability,
  type LeafOperator,
  type ScopeCapabilities,
  searchCapabilities,
} from './fields/capabilities.ts';
export { INTERNAL_FIELDS } from './fields/field-resolution.ts';
export { SEARCH_LIMITS } from './limits.ts';
export { type IndexDocument, indexDocumentId, toIndexDocument } from './mapping/index-document.ts';
export { buildIndexMapping } from './mapping/index-mapping.ts';
export { matches as recordMatches } from './oracle/evaluate.ts';
export { SearchParamsSchema } from './params/search-params-schema.ts';
export { planSearch } from './plan-search.ts';
export { fuseSemantic } from './results/fuse-semantic.ts';
export { lookupAnswerAsSearch } from './results/lookup-answer.ts';
export { emptySearchPage, readSearchPage, searchProblemOf } from './results/read-search-page.ts';
export { AggResultSchema, SearchTotalSchema } from './results/search-answer-schema.ts';
export { searchPageBody, searchPageJson } from './results/search-page-json.ts';
export { VECTOR_FIELDS } from './semantic/vector-fields.ts';
export { planSql, runSqlJson, type SqlRequest, SqlRequestSchema } from './sql/run-sql.ts';
export { isSqlQueryError, SqlQueryError } from './sql/sql-error.ts';
export { SQL_TEXT_LIMITS } from './sql/sql-prescan.ts';
export type { SqlTables } from './sql/sql-tree.ts';
