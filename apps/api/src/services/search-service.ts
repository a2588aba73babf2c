import { createSecretKey } from 'node:crypto';
import type { Answer, AnswerCache, AnswerMeta } from '@conduit/answer-cache';
import { type EntityCatalog, type KindCatalog, literalDottedFields } from '@conduit/connectors';
import type { ConnectorRow } from '@conduit/db';
import { indexKindOf } from '@conduit/hosted-connectors';
import {
  type CompiledSearch,
  emptySearchPage,
  fuseSemantic,
  hashQuery,
  isSearchQueryError,
  isSqlQueryError,
  type KeyLookup,
  lookupAnswerAsSearch,
  planSearch,
  planSql,
  runSqlJson,
  type SqlQueryError,
  type SqlRequest,
  type SqlTables,
  searchPageBody,
  searchPageJson,
  searchProblemOf,
} from '@conduit/search-dsl';
import {
  type CopySearch,
  EngineQueryError,
  type IndexLifecycle,
  type LookupAnswer,
  SearchAbandonedError,
  type SearchAnswer,
  SearchQueueFullError,
  type SearchRequestOptions,
  SearchTimeoutError,
} from '@conduit/search-store';
import { inSpan } from '@conduit/tracing';
import { LRUCache } from 'lru-cache';
import { ApiError } from '../problem.ts';
import type { CostlySearchSlots } from './costly-search-slots.ts';

/** When the entity's last pass completed for this connector (sync_states.last_success_at), null before the first. */
export type SyncedAt = (connectorId: string, entity: string) => Promise<Date | null>;

/**
 * The request a search serves: its caller may go away (`signal`), its id names the engine's task, and its
 * `If-None-Match` may name the answer it already holds (a 304 then).
 */
export interface SearchContext {
  readonly signal?: AbortSignal;
  readonly requestId?: string;
  readonly ifNoneMatch?: string | undefined;
}

/**
 * From this cost (search-dsl units, docs/search-cost.md) a search is costly: it goes alone, in the transport's
 * lane for costly searches, where it can be cancelled in the engine when its caller goes away. Every `like` the
 * 3-gram index cannot narrow is (50 units and more), and so is a query near the budget.
 */
const COSTLY_FROM = 20;

type SearchPlan = ReturnType<typeof planSearch>;
type SqlPlan = ReturnType<typeof planSql>;

/** A search whose params serialize longer than this is planned every time (its key would outweigh its plan). */
const PLAN_CACHE_MAX_KEY = 8 * 1024;
/** Plans kept per API process: a dashboard's repeated searches, not every search ever asked. */
const PLAN_CACHE_ENTRIES = 512;

/**
 * Every answer (docs/api.md, "Answers from memory"): a 200 whose JSON body's `meta` has `synced_at`, `as_of` and
 * `cache`, with its ETag; or a 304 for the ETag the request's `If-None-Match` named.
 */
export interface SearchService {
  /** The `search` action's answer (a page, docs/search.md). */
  search(row: ConnectorRow, entity: EntityCatalog, params: unknown, context?: SearchContext): Promise<Answer>;
  /**
   * `POST .../sql`: one SELECT over the connector's searchable entities (docs/sql.md). Every engine call carries
   * the request's signal; a query that may read many batches of groups is costly (below).
   */
  sql(row: ConnectorRow, catalog: KindCatalog, request: SqlRequest, context?: SearchContext): Promise<Answer>;
}

/** The connector's tables: its searchable entities, by name. */
export function sqlTables(catalog: KindCatalog): SqlTables {
  return Object.fromEntries(
    Object.values(catalog.entities).flatMap((e) =>
      e.searchable
        ? [
            [
              e.name,
              { searchable: e.searchable, recordKey: e.recordKey, ...(e.embed ? { embed: e.embed } : {}) },
            ] as const,
          ]
        : [],
    ),
  );
}

/**
 * `search` over the synchronized copy: the query is compiled by search-dsl (validation errors are 400s with
 * paths), always filtered and routed by connector id. Never calls the upstream. The answer is written by
 * search-dsl straight from the engine's bytes (`searchPageJson`), so records are never parsed here. A search by
 * record keys is a multi-get of their documents instead (`plan.lookup`), with the same answer.
 * `meta.synced_at` is the end of the entity's last completed pass (sync_states.last_success_at, null before).
 */
export function createSearchService(
  copySearch: CopySearch,
  indexes: Pick<IndexLifecycle, 'alias' | 'refresh'>,
  cursorKey: Uint8Array | string,
  syncedAt: SyncedAt,
  costlySlots: CostlySearchSlots | undefined,
  options: {
    /** Kept answers, `meta.as_of` and ETags (docs/architecture.md, "The answer cache"). */
    readonly answers: AnswerCache;
    /** The vector of a `query.semantic` text (QueryVectors); without it, searches by meaning answer 503. */
    readonly queryVector?: (text: string) => Promise<readonly number[]>;
  },
): SearchService {
  const answers = options.answers;
  // Prepared once: given as bytes, the key would be prepared again for every cursor signed or checked.
  const key = createSecretKey(typeof cursorKey === 'string' ? Buffer.from(cursorKey) : cursorKey);
  // Per entity of the catalog (which never changes while the process runs), not per search.
  const literalFields = new WeakMap<EntityCatalog, ReadonlySet<string>>();
  const literalFieldsOf = (entity: EntityCatalog) => {
    let fields = literalFields.get(entity);
    if (!fields) {
      fields = new Set(literalDottedFields(entity));
      literalFields.set(entity, fields);
    }
    return fields;
  };
  /*
   * The last plans made, by connector, entity and params (as JSON): planning (parse, validate, cost, compile) is the
   * largest part of a search's own work in the API (docs/search-cost.md), and a plan is a pure function of its key:
   * the catalog and the cursor key do not change while the process runs, and a cursor has no expiry. A kept plan
   * is shared by every search that finds it, so nothing may change it.
   */
  const plans = new LRUCache<string, SearchPlan>({ max: PLAN_CACHE_ENTRIES });
  const planOf = (row: ConnectorRow, entity: EntityCatalog, params: unknown): SearchPlan => {
    // The connector type too: an entity's catalog is its connector kind's.
    const planKey = `${row.id}\n${row.connector_type}\n${entity.name}\n${JSON.stringify(params)}`;
    const kept = planKey.length <= PLAN_CACHE_MAX_KEY ? plans.get(planKey) : undefined;
    if (kept) return kept;
    // A search that does not plan throws here, so a refused search is never kept.
    const plan = planSearch(params, {
      searchable: entity.searchable ?? {},
      recordKey: entity.recordKey,
      ...(entity.embed ? { embed: entity.embed } : {}),
      connectorId: row.id,
      entity: `${row.connector_type}/${entity.name}`,
      cursorKey: key,
      literalFields: literalFieldsOf(entity),
    });
    if (planKey.length <= PLAN_CACHE_MAX_KEY) plans.set(planKey, plan);
    return plan;
  };
  // A kept plan's question key is hashed once (the canonical JSON of its params, docs/architecture.md).
  const questionKeys = new WeakMap<SearchPlan, string>();
  const questionKey = (row: ConnectorRow, entity: EntityCatalog, plan: SearchPlan): string => {
    let questionKey = questionKeys.get(plan);
    if (questionKey === undefined) {
      const parts = [
        row.organization_id,
        row.id,
        row.connector_type,
        entity.name,
        fieldsId(entity),
        plan.search.params,
      ];
      questionKey = hashQuery(parts);
      questionKeys.set(plan, questionKey);
    }
    return questionKey;
  };
  /*
   * The same for SQL: binding a statement to the connector's tables (validation, the typed query) is most of a SQL
   * question's own work in the API, and a plan is a pure function of the request, the tables and the connector.
   */
  const sqlPlans = new LRUCache<string, SqlPlan>({ max: PLAN_CACHE_ENTRIES });
  const sqlPlanOf = (row: ConnectorRow, catalog: KindCatalog, request: SqlRequest): SqlPlan => {
    const planKey = `${row.id}\n${row.connector_type}\n${tablesId(catalog)}\n${request.limit ?? ''}\n${request.cursor ?? ''}\n${request.query}`;
    const kept = planKey.length <= PLAN_CACHE_MAX_KEY ? sqlPlans.get(planKey) : undefined;
    if (kept) return kept;
    let plan: SqlPlan;
    try {
      plan = planSql(request, { tables: sqlTables(catalog), connectorId: row.id, cursorKey: key });
    } catch (error) {
      throw isSqlQueryError(error) ? sqlProblem(error) : error;
    }
    if (planKey.length <= PLAN_CACHE_MAX_KEY) sqlPlans.set(planKey, plan);
    return plan;
  };
  // The statement as parsed (without positions): texts that differ in spacing or case of keywords are one question.
  const sqlQuestionKeys = new WeakMap<SqlPlan, string>();
  const sqlQuestionKey = (row: ConnectorRow, catalog: KindCatalog, request: SqlRequest, plan: SqlPlan): string => {
    let questionKey = sqlQuestionKeys.get(plan);
    if (questionKey === undefined) {
      questionKey = hashQuery([
        row.organization_id,
        row.id,
        row.connector_type,
        tablesId(catalog),
        plan.binding.queryHash,
        request.limit ?? null,
        request.cursor ?? null,
      ]);
      sqlQuestionKeys.set(plan, questionKey);
    }
    return questionKey;
  };
  return {
    async search(row, entity, params, context = {}) {
      const plan = planOf(row, entity, params);
      const kind = indexKindOf(row);
      const question = {
        scope: { connectorId: row.id, entity: entity.name },
        // By meaning: the word side's scores depend on every record of the index (term statistics), so a change
        // outside the filter may reorder it; such answers are never kept.
        key: plan.semantic ? undefined : questionKey(row, entity, plan),
        filter: plan.search.filter,
        ifNoneMatch: context.ifNoneMatch,
      };
      return answers.answer(
        question,
        async (meta) => ({ body: await searchBody(row, entity, plan, meta, context) }),
        () => refreshed(kind, entity.name),
      );
    },

    async sql(row, catalog, request, context = {}) {
      const plan = sqlPlanOf(row, catalog, request);
      const query = plan.query;
      const question = {
        scope: { connectorId: row.id, entity: query.entity },
        key: query.mode === 'rows' && query.search.semantic ? undefined : sqlQuestionKey(row, catalog, request, plan),
        filter: query.mode === 'rows' ? query.search.filter : query.filter,
        ifNoneMatch: context.ifNoneMatch,
      };
      return answers.answer(
        question,
        async (meta) => {
          const body = await sqlBody(row, plan, meta, context);
          // A page cut at the request's engine budget is what this request could read, not the answer: not kept.
          return { body, keep: !cutShort(body) };
        },
        () => refreshed(indexKindOf(row), query.entity),
      );
    },
  };

  /** The entity's index refreshed before a question is computed; an engine that cannot is unavailable, as a search. */
  async function refreshed(kind: string, entity: string): Promise<void> {
    try {
      await indexes.refresh(kind, entity);
    } catch (error) {
      throw searchUnavailable('cannot answer', error);
    }
  }

  /** The page of a search, its meta extended by `synced_at` and the answer's meta. */
  async function searchBody(
    row: ConnectorRow,
    entity: EntityCatalog,
    plan: SearchPlan,
    meta: AnswerMeta,
    context: SearchContext,
  ): Promise<Buffer<ArrayBuffer>> {
    // Read beside the query (docs/architecture.md: meta.synced_at); a failure surfaces when awaited, never unhandled.
    const extra = syncedAt(row.id, entity.name).then((at) => ({ synced_at: at?.toISOString() ?? null, ...meta }));
    extra.catch(() => undefined);
    const index = indexes.alias(indexKindOf(row), entity.name);
    if (plan.semantic) {
      const semantic = plan.semantic;
      const search = (body: unknown) =>
        inSpan('opensearch.search', { 'db.system': 'opensearch', 'db.collection.name': index }, () =>
          copySearch.search(index, row.id, body, requestOptions(row, context, false)),
        );
      return searchByMeaning(semantic, plan, search, options.queryVector, extra);
    }
    if (plan.lookup) {
      const page = await lookUp(copySearch, index, row, plan.lookup, plan, extra);
      if (page) return page;
    }
    const costly = plan.cost >= COSTLY_FROM;
    const giveBack = costly && costlySlots ? await costlySlots.take(row.organization_id) : undefined;
    if (costly && costlySlots && !giveBack) {
      throw new ApiError(429, 'rate_limited', 'too many costly searches of this organization are running', {
        retryAfterSeconds: 1,
      });
    }
    let response: SearchAnswer;
    try {
      response = await inSpan('opensearch.search', { 'db.system': 'opensearch', 'db.collection.name': index }, () =>
        copySearch.search(index, row.id, plan.body, requestOptions(row, context, costly)),
      );
    } catch (error) {
      throwIfShared(error);
      // Some engine errors are the query's (too many histogram buckets): a 400 at the aggregation.
      const problem = error instanceof EngineQueryError ? searchProblemOf(error.answer, plan.page) : undefined;
      throw problem ?? searchUnavailable('cannot answer', error);
    } finally {
      // Given back without waiting: Redis being slow must not delay the answer (a lost slot goes stale).
      giveBack?.().catch(() => undefined);
    }
    // No index yet: the first sync has not written anything, so there is nothing to find so far.
    if (response.statusCode === 404) return searchPageBody(emptySearchPage(plan.page), await extra);
    try {
      return searchPageJson(response.json, plan.page, await extra);
    } catch (error) {
      if (isSearchQueryError(error)) throw error;
      throw searchUnavailable('answered what cannot be read', error);
    }
  }

  /** The page of a SQL query, its meta extended by `synced_at` and the answer's meta. */
  async function sqlBody(
    row: ConnectorRow,
    plan: SqlPlan,
    meta: AnswerMeta,
    context: SearchContext,
  ): Promise<Buffer<ArrayBuffer>> {
    // Read beside the query; awaited only to write the answer.
    const extra = syncedAt(row.id, plan.query.entity).then((at) => ({
      synced_at: at?.toISOString() ?? null,
      ...meta,
    }));
    extra.catch(() => undefined);
    // A GROUP BY may read many batches of groups (each a search running its WHERE): costly, as a costly search,
    // whatever its WHERE costs. It holds one of the organization's slots for the whole request.
    const query = plan.query;
    const costly = (query.mode === 'groups' && query.keys.length > 0) || query.cost >= COSTLY_FROM;
    const giveBack = costly && costlySlots ? await costlySlots.take(row.organization_id) : undefined;
    if (costly && costlySlots && !giveBack) {
      throw new ApiError(429, 'rate_limited', 'too many costly searches of this organization are running', {
        retryAfterSeconds: 1,
      });
    }
    try {
      return await runSqlJson(
        plan,
        {
          // The organization's share of the engine, as its searches (fair sharing: docs/search-cost.md); costly
          // ones go alone, so that the request's signal cancels them in the engine when its caller goes away.
          async search(entity, body) {
            try {
              return await copySearch.search(
                indexes.alias(indexKindOf(row), entity),
                row.id,
                body,
                requestOptions(row, context, costly),
              );
            } catch (error) {
              throwIfShared(error);
              throw searchUnavailable('cannot answer', error);
            }
          },
          async lookup(entity, ids, includes) {
            const index = indexes.alias(indexKindOf(row), entity);
            try {
              return await copySearch.lookup(index, row.id, ids, includes, row.organization_id);
            } catch (error) {
              throwIfShared(error);
              throw searchUnavailable('cannot answer', error);
            }
          },
          ...(options.queryVector ? { vector: options.queryVector } : {}),
        },
        extra,
      );
    } catch (error) {
      if (isSqlQueryError(error)) throw sqlProblem(error);
      if (error instanceof ApiError) throw error;
      throw searchUnavailable('answered what cannot be read', error);
    } finally {
      giveBack?.().catch(() => undefined);
    }
  }
}

/** Catalog contents by object: a kind defined at run time may change its fields (then its answers are others). */
const fieldIds = new WeakMap<object, string>();
function fieldsId(entity: EntityCatalog): string {
  let id = fieldIds.get(entity);
  if (id === undefined) {
    id = hashQuery([entity.searchable ?? null, entity.recordKey, entity.embed ?? null]);
    fieldIds.set(entity, id);
  }
  return id;
}
function tablesId(catalog: KindCatalog): string {
  let id = fieldIds.get(catalog);
  if (id === undefined) {
    id = hashQuery(sqlTables(catalog));
    fieldIds.set(catalog, id);
  }
  return id;
}

/**
 * A GROUP BY page stopped at the request's engine budget (`meta.partial`). `meta` is the body's last member and
 * holds no text of the caller's unescaped, so its `"partial":true` is the only one after its start.
 */
function cutShort(body: Buffer): boolean {
  const meta = body.lastIndexOf('],"meta":{');
  return meta >= 0 && body.indexOf('"partial":true', meta) >= 0;
}

/**
 * `query.semantic` (docs/search.md): the text's vector, then the plan's vector and word searches side by side (each
 * one search in the organization's share of the engine), fused into the page with `meta.scores`.
 */
async function searchByMeaning(
  semantic: NonNullable<SearchPlan['semantic']>,
  plan: SearchPlan,
  search: (body: unknown) => Promise<SearchAnswer>,
  queryVector: ((text: string) => Promise<readonly number[]>) | undefined,
  meta: Promise<Readonly<Record<string, unknown>>>,
): Promise<Buffer<ArrayBuffer>> {
  if (!queryVector) throw new ApiError(503, 'search_unavailable', 'search by meaning is not available here');
  const vector = await queryVector(semantic.ranking.text);
  let answers: [SearchAnswer, SearchAnswer];
  try {
    answers = await Promise.all([search(semantic.textBody), search(semantic.vectorBody(vector))]);
  } catch (error) {
    throwIfShared(error);
    throw searchUnavailable('cannot answer', error);
  }
  const extra = await meta;
  const [words, vectors] = answers;
  if (words.statusCode === 404 || vectors.statusCode === 404) {
    return searchPageBody(emptySearchPage(plan.page), { ...extra, scores: [] });
  }
  try {
    const page = fuseSemantic(
      JSON.parse(words.json.toString('utf8')),
      JSON.parse(vectors.json.toString('utf8')),
      semantic,
      plan.page,
    );
    return searchPageBody(page, extra);
  } catch (error) {
    if (isSearchQueryError(error)) throw error;
    throw searchUnavailable('answered what cannot be read', error);
  }
}

/**
 * A SQL problem as a 400: `invalid_sql` with each problem at `/query` and its line and column (in the message and
 * as fields), or `invalid_cursor` at `/cursor`.
 */
const SQL_PROBLEM_TITLES: Record<SqlQueryError['code'], string> = {
  invalid_sql: 'Invalid SQL',
  query_too_costly: 'Query too costly',
  invalid_cursor: 'Invalid cursor',
};

function sqlProblem(error: SqlQueryError): ApiError {
  const path = error.code === 'invalid_cursor' ? '/cursor' : '/query';
  const errors = error.problems.map((p) =>
    error.code === 'invalid_cursor'
      ? { path, message: p.message }
      : { path, message: `line ${p.line}, column ${p.column}: ${p.message}`, line: p.line, column: p.column },
  );
  return new ApiError(
    400,
    error.code,
    `${SQL_PROBLEM_TITLES[error.code]}: ${errors.map((e) => e.message).join('; ')}`,
    { errors: errors },
  );
}

/**
 * A search by keys, answered by the engine's multi-get (search-dsl's compileLookup): the page its `_search` would
 * give. Undefined when the engine answered that it could not look the documents up (no index yet, an alias over
 * two indices): the search itself then answers. An engine that does not answer at all is a 503 at once, as for a
 * search, rather than a second wait for the search.
 */
async function lookUp(
  copySearch: CopySearch,
  index: string,
  row: ConnectorRow,
  lookup: KeyLookup,
  plan: CompiledSearch,
  meta: Promise<Readonly<Record<string, unknown>>>,
): Promise<Buffer<ArrayBuffer> | undefined> {
  let answer: LookupAnswer;
  try {
    answer = await copySearch.lookup(index, row.id, lookup.ids, lookup.includes, row.organization_id);
  } catch (error) {
    throwIfShared(error);
    throw searchUnavailable('cannot answer', error);
  }
  const asSearch =
    answer.statusCode === 200 ? lookupAnswerAsSearch(answer.json, Math.round(answer.engineMs)) : undefined;
  if (!asSearch) return undefined;
  const extra = await meta;
  try {
    return searchPageJson(asSearch, plan.page, extra);
  } catch {
    return undefined;
  }
}

/**
 * The engine's slots are shared between organizations: one with too many searches waiting is told to come back
 * (429); a search cut at the engine's time limit, or whose caller went away, is no answer.
 */
function throwIfShared(error: unknown): void {
  if (error instanceof SearchQueueFullError) {
    throw new ApiError(429, 'rate_limited', error.message, {
      retryAfterSeconds: error.retryAfterSeconds,
      cause: error,
    });
  }
  if (error instanceof SearchAbandonedError) {
    throw new ApiError(503, 'search_unavailable', error.message, { cause: error });
  }
  if (error instanceof SearchTimeoutError) {
    throw new ApiError(503, 'search_unavailable', error.message, { cause: error });
  }
}

/** A 503 for an engine that did not answer, or answered what cannot be read; the cause is cut to 200 characters. */
/** A search's share of the engine: its organization's, cancelled with its request when costly (docs/search-cost.md). */
function requestOptions(row: ConnectorRow, context: SearchContext, costly: boolean): SearchRequestOptions {
  return {
    tenant: row.organization_id,
    costly,
    ...(context.signal ? { signal: context.signal } : {}),
    ...(context.requestId ? { opaqueId: context.requestId } : {}),
  };
}

function searchUnavailable(what: string, error: unknown): ApiError {
  const cause = error instanceof Error ? error.message.slice(0, 200) : 'unknown error';
  return new ApiError(503, 'search_unavailable', `the search index ${what}: ${cause}`, { cause: error });
}
