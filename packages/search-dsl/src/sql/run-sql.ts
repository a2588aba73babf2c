import { z } from 'zod';
import { compileLookup } from '../compile/opensearch/compile-lookup.ts';
import { compileSearch, type PageContext } from '../compile/opensearch/compile-search.ts';
import { compileSemantic, type SemanticPlan } from '../compile/opensearch/compile-semantic.ts';
import { type CursorBinding, type CursorKey, hashQuery } from '../cursor/cursor.ts';
import { isSearchQueryError } from '../errors.ts';
import { getPath } from '../fields/paths.ts';
import { toInstant } from '../fields/values.ts';
import { SEARCH_LIMITS } from '../limits.ts';
import { fuseSemantic } from '../results/fuse-semantic.ts';
import { lookupAnswerAsSearch } from '../results/lookup-answer.ts';
import { emptySearchPage, readSearchPage, type SearchPage, type SearchTotal } from '../results/read-search-page.ts';
import { searchPageBody, searchPageJson } from '../results/search-page-json.ts';
import type { SemanticRanking } from '../validate/validate-search.ts';
import { bindSql } from './bind-sql.ts';
import { parseSqlCached } from './parse-sql.ts';
import { runGroups, SQL_BUDGET, type SqlBudget } from './run-groups.ts';
import { type CursorState, decodeSqlCursor, encodeSqlCursor } from './sql-cursor.ts';
import { SqlQueryError } from './sql-error.ts';
import type { RowColumn, RowsQuery, SqlColumn, SqlQuery, SqlTables } from './sql-tree.ts';
import { truncateInstant } from './truncate.ts';

/** The body of `POST .../sql`. */
export const SqlRequestSchema = z.strictObject({
  query: z.string().min(1).meta({ description: "One SELECT over the connector's entities (see docs/sql.md)" }),
  limit: z
    .number()
    .int()
    .min(1)
    .max(SEARCH_LIMITS.maxLimit)
    .optional()
    .meta({ description: 'Rows per page (default 1000)' }),
  cursor: z.string().min(1).optional().meta({ description: 'meta.cursor of the previous page' }),
});
export type SqlRequest = z.infer<typeof SqlRequestSchema>;

export type SqlPage = {
  readonly data: Record<string, unknown>[];
  readonly meta: {
    readonly columns: readonly SqlColumn[];
    readonly has_more: boolean;
    readonly cursor: string | null;
    readonly took_ms: number | null;
    /** Rows the whole query answers, when known: row queries (as search's total), queries without GROUP BY, ORDER BY an aggregate. */
    readonly total?: SearchTotal;
    /** The page stopped at the request's engine budget before it was full (has_more, and the cursor goes on). */
    readonly partial?: true;
    /** `ORDER BY similarity(...)`: each row's score by meaning, in the order of `data` (docs/search.md). */
    readonly scores?: readonly number[];
  };
};

export type PlanSqlOptions = {
  readonly tables: SqlTables;
  readonly connectorId: string;
  readonly cursorKey: CursorKey;
};

export type SqlPlan = {
  readonly query: SqlQuery;
  readonly state: CursorState | undefined;
  readonly pageLimit: number;
  readonly binding: CursorBinding;
  readonly options: PlanSqlOptions;
};

type EngineAnswer = { readonly statusCode: number; readonly json: Buffer | string };

/** How runSql reaches the engine: the entity's index, routed to the connector. */
export type SqlEngine = {
  /** A `_search`; 404 when there is no index yet. */
  search(entity: string, body: unknown): Promise<EngineAnswer>;
  /** A multi-get of documents by id with these source includes (`_mget`), for row queries by record keys. */
  lookup?(
    entity: string,
    ids: readonly string[],
    includes: readonly string[],
  ): Promise<EngineAnswer & { readonly engineMs: number }>;
  /** The vector of a text, for `ORDER BY similarity(col, 'text')` (the API's query vectors). */
  vector?(text: string): Promise<readonly number[]>;
};

/**
 * Parse → bind (validate) → the typed query, with the cursor checked and this page's size.
 *
 * @throws SqlQueryError `invalid_sql` (with line and column) or `invalid_cursor`.
 * @example
 * const plan = planSql({ query: 'SELECT status, COUNT(*) FROM invoices GROUP BY status' }, { tables, connectorId, cursorKey });
 * const page = await runSql(plan, { search: (entity, body) => copySearch.search(alias(entity), connectorId, body) });
 */
export function planSql(request: SqlRequest, options: PlanSqlOptions): SqlPlan {
  const statement = parseSqlCached(request.query);
  // Hashed when a cursor is read or written, not before: most queries do neither.
  let queryHash: string | undefined;
  const binding: CursorBinding = {
    connectorId: options.connectorId,
    entity: 'sql',
    get queryHash() {
      queryHash ??= hashQuery(JSON.parse(JSON.stringify(statement, (k, v) => (k === '_location' ? undefined : v))));
      return queryHash;
    },
  };
  let state: CursorState | undefined;
  // Not one of ours: maybe the search cursor a `SELECT *` page hands out (see `direct`), checked when it is used.
  let foreign: { cursor: string; error: unknown } | undefined;
  if (request.cursor !== undefined) {
    try {
      state = decodeSqlCursor(request.cursor, binding, options.cursorKey);
    } catch (error) {
      foreign = { cursor: request.cursor, error };
    }
  }
  const limitExpr = statement.limit?.limit;
  const total = limitExpr?.type === 'integer' ? limitExpr.value : undefined;
  const emitted = state && state.k !== 'offset' ? state.emitted : state?.k === 'offset' ? state.offset : 0;
  const requested = request.limit ?? SEARCH_LIMITS.defaultLimit;
  const pageLimit = Math.max(0, Math.min(requested, total === undefined ? requested : total - emitted));
  const query = bindSql(statement, request.query, {
    tables: options.tables,
    pageLimit,
    searchCursor: state?.k === 'rows' ? state.search : foreign?.cursor,
  });
  if (foreign && !direct(query)) throw foreign.error;
  if (state && (state.k === 'rows') !== (query.mode === 'rows')) {
    throw new SqlQueryError('invalid_cursor', [{ line: 1, column: 1, message: 'cursor belongs to a different query' }]);
  }
  return { query, state, pageLimit, binding, options };
}

/**
 * `SELECT * FROM t [WHERE ...] [ORDER BY ...]` is exactly a search and its rows are the records: its pages are the
 * search's own, written from the engine's bytes (searchPageJson) with the search's cursors.
 */
function direct(query: SqlQuery): query is RowsQuery {
  return query.mode === 'rows' && query.star && query.limit === undefined && query.search.semantic === undefined;
}

/**
 * `runSql` as the JSON body of the answer, `meta` extended by `extra`. A `SELECT *` without LIMIT is written from
 * the engine's bytes as search's pages are (the records are never parsed); the others are serialized.
 */
export async function runSqlJson(
  plan: SqlPlan,
  engine: SqlEngine,
  extra: Readonly<Record<string, unknown>> | Promise<Readonly<Record<string, unknown>>> = {},
  budget: SqlBudget = SQL_BUDGET,
): Promise<Buffer<ArrayBuffer>> {
  const query = plan.query;
  if (!direct(query)) {
    const page = await runSql(plan, engine, budget);
    return Buffer.from(JSON.stringify({ data: page.data, meta: { ...page.meta, ...(await extra) } }));
  }
  const compiled = compileRows(plan, query);
  const columns = query.columns.map(({ name, type }) => ({ name, type }));
  const found = await lookedUpBytes(plan, query, engine, compiled.body._source.includes);
  if (found) return searchPageJson(found, compiled.page, { columns, ...(await extra) });
  const answer = await engine.search(query.entity, compiled.body);
  const meta = { columns, ...(await extra) };
  if (answer.statusCode === 404) return searchPageBody(emptySearchPage(compiled.page), meta);
  return searchPageJson(typeof answer.json === 'string' ? Buffer.from(answer.json) : answer.json, compiled.page, meta);
}

/** The search of a row query; its inner cursor's problems are the query's `invalid_cursor`. */
function compileRows(plan: SqlPlan, query: RowsQuery) {
  try {
    return compileSearch(query.search, {
      connectorId: plan.options.connectorId,
      entity: query.entity,
      cursorKey: plan.options.cursorKey,
    });
  } catch (error) {
    if (!isSearchQueryError(error)) throw error;
    throw new SqlQueryError('invalid_cursor', [
      { line: 1, column: 1, message: error.errors[0]?.message ?? 'invalid cursor' },
    ]);
  }
}

/**
 * Runs a plan: one search for rows; for groups, composite batches until the page is full, the groups end or the
 * request's budget is spent (run-groups.ts).
 */
export function runSql(plan: SqlPlan, engine: SqlEngine, budget: SqlBudget = SQL_BUDGET): Promise<SqlPage> {
  return plan.query.mode === 'rows' ? runRows(plan, plan.query, engine) : runGroups(plan, plan.query, engine, budget);
}

/**
 * A row query by record keys (`WHERE id = ...`, `WHERE id IN (...)`) is answered by a multi-get of their
 * documents, as search does (compileLookup); undefined when the engine could not look them up.
 */
async function lookedUp(plan: SqlPlan, query: RowsQuery, engine: SqlEngine, includes: readonly string[]) {
  const bytes = await lookedUpBytes(plan, query, engine, includes);
  return bytes && JSON.parse(bytes.toString('utf8'));
}

/** `lookedUp`, as the engine answer's bytes in the form of a `_search` answer. */
async function lookedUpBytes(plan: SqlPlan, query: RowsQuery, engine: SqlEngine, includes: readonly string[]) {
  const table = plan.options.tables[query.entity];
  if (!engine.lookup || !table || query.limit !== undefined) return undefined;
  const lookup = compileLookup(query.search, {
    recordKey: table.recordKey,
    connectorId: plan.options.connectorId,
    includes,
  });
  if (!lookup) return undefined;
  const answer = await engine.lookup(query.entity, lookup.ids, lookup.includes);
  if (answer.statusCode !== 200) return undefined;
  const json = typeof answer.json === 'string' ? Buffer.from(answer.json) : answer.json;
  return lookupAnswerAsSearch(json, Math.round(answer.engineMs));
}

async function runRows(plan: SqlPlan, query: RowsQuery, engine: SqlEngine): Promise<SqlPage> {
  const emitted = plan.state?.k === 'rows' ? plan.state.emitted : 0;
  const compiled = compileRows(plan, query);
  const columns = query.columns.map(({ name, type }) => ({ name, type }));
  if (plan.pageLimit === 0) {
    return {
      data: [],
      meta: { columns, has_more: false, cursor: null, took_ms: 0, total: { value: emitted, exact: true } },
    };
  }
  const ranking = query.search.semantic;
  const found = ranking ? undefined : await lookedUp(plan, query, engine, compiled.body._source.includes);
  const answer = found || ranking ? undefined : await engine.search(query.entity, compiled.body);
  const page = ranking
    ? await rankedByMeaning(plan, query, ranking, compiled.page, engine)
    : found
      ? readSearchPage(found, compiled.page)
      : answer!.statusCode === 404
        ? emptySearchPage(compiled.page)
        : readSearchPage(JSON.parse(String(answer!.json)), compiled.page);
  const data = page.data.map((record) => (query.star ? record : toRow(record, query.columns)));
  const has_more = page.meta.has_more && (query.limit === undefined || emitted + data.length < query.limit);
  const cursor = direct(query)
    ? page.meta.cursor
    : has_more && page.meta.cursor
      ? encodeSqlCursor(
          { k: 'rows', search: page.meta.cursor, emitted: emitted + data.length },
          plan.binding,
          plan.options.cursorKey,
        )
      : null;
  const total = page.meta.total;
  const limited = query.limit !== undefined && query.limit <= total.value ? { value: query.limit, exact: true } : total;
  const scores = (page.meta as { scores?: readonly number[] }).scores;
  return {
    data,
    meta: { columns, has_more, cursor, took_ms: page.meta.took_ms, total: limited, ...(scores ? { scores } : {}) },
  };
}

/**
 * `ORDER BY similarity(col, 'text')`: the search by meaning of docs/search.md over the WHERE's records (its two
 * engine searches, fused), the page's cursor holding where the next page begins.
 */
async function rankedByMeaning(
  plan: SqlPlan,
  query: RowsQuery,
  ranking: SemanticRanking,
  page: PageContext,
  engine: SqlEngine,
): Promise<SearchPage> {
  if (!engine.vector) {
    throw new SqlQueryError('invalid_sql', [{ line: 1, column: 1, message: 'similarity() is not available here' }]);
  }
  let semantic: SemanticPlan;
  try {
    semantic = compileSemantic(
      query.search,
      ranking,
      { connectorId: plan.options.connectorId, entity: query.entity, cursorKey: plan.options.cursorKey },
      page,
    );
  } catch (error) {
    if (!isSearchQueryError(error)) throw error;
    throw new SqlQueryError('invalid_cursor', [
      { line: 1, column: 1, message: error.errors[0]?.message ?? 'invalid cursor' },
    ]);
  }
  const vector = await engine.vector(ranking.text);
  const [words, vectors] = await Promise.all([
    engine.search(query.entity, semantic.textBody),
    engine.search(query.entity, semantic.vectorBody(vector)),
  ]);
  if (words.statusCode === 404 || vectors.statusCode === 404) return emptySearchPage(page);
  return fuseSemantic(JSON.parse(String(words.json)), JSON.parse(String(vectors.json)), semantic, page);
}

function toRow(record: Record<string, unknown>, columns: readonly RowColumn[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const c of columns) {
    const value = getPath(record, c.path);
    if (!c.trunc) row[c.name] = value ?? null;
    else {
      const instant = toInstant(value);
      row[c.name] = instant === undefined ? null : truncateInstant(instant, c.trunc);
    }
  }
  return row;
}
