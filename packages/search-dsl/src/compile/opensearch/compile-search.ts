import type { AggNode } from '../../ast/aggregations.ts';
import { type CursorBinding, type CursorKey, decodeCursor, hashQuery, type SearchAfter } from '../../cursor/cursor.ts';
import { exactField, type FieldRef, INTERNAL_FIELDS } from '../../fields/field-resolution.ts';
import { SEARCH_LIMITS } from '../../limits.ts';
import type { ValidatedSearch } from '../../validate/validate-search.ts';
import { compileAggregations } from './compile-aggregations.ts';
import { compileFilter, type QueryClause } from './compile-filter.ts';

/**
 * Beyond every indexable instant (years 0000-9999) yet a safe integer. `_last` would make OpenSearch use
 * Long.MAX_VALUE, which JSON clients read back as 9223372036854775808 and a date field then refuses in
 * `search_after`; an explicit missing value keeps cursors round-trippable.
 */
const DATE_MISSING_MILLIS = 8_640_000_000_000_000;

function missingLast(field: FieldRef, direction: 'asc' | 'desc'): string | number {
  if (field.storage === 'typed' && field.spec.type === 'datetime') {
    return direction === 'asc' ? DATE_MISSING_MILLIS : -DATE_MISSING_MILLIS;
  }
  return '_last';
}

const NO_LITERAL_FIELDS: ReadonlySet<string> = new Set();

export type CompileOptions = {
  readonly connectorId: string;
  readonly entity: string;
  /** Secret for signing cursors (HMAC-SHA256). */
  readonly cursorKey: CursorKey;
  /**
   * Dotted searchable fields that are one literal key of the upstream record (Sentry's `event.type`), not a path
   * into an object: results keep them flat under that name.
   */
  readonly literalFields?: ReadonlySet<string>;
};

/** An OpenSearch `_search` body; independent of the index name. */
export type SearchBody = {
  readonly size: number;
  readonly query: QueryClause;
  readonly sort: readonly QueryClause[];
  readonly _source: { readonly includes: readonly string[] };
  /** Counted exactly up to this many matches (`meta.total`). */
  readonly track_total_hits: number;
  readonly search_after?: SearchAfter;
  readonly aggs?: Record<string, QueryClause>;
};

/** What `readSearchPage` needs to turn the response into a page. */
export type PageContext = {
  readonly limit: number;
  /** Integer and decimal sort keys (by position in `sort`): their cursor values are read exactly from the record. */
  readonly exactSortValues: readonly {
    readonly index: number;
    readonly path: string;
    readonly type: 'integer' | 'decimal';
  }[];
  readonly fields: readonly string[];
  /** Fields shown under their dotted name as one key (CompileOptions.literalFields). */
  readonly literalFields: ReadonlySet<string>;
  /** The aggregations asked for, to read their answers by name. */
  readonly aggregations: readonly AggNode[];
  readonly binding: CursorBinding;
  readonly cursorKey: CursorKey;
};

export type CompiledSearch = { readonly body: SearchBody; readonly page: PageContext };

/**
 * The live documents of one connector: what every search, count and aggregation over the copy is limited to, as
 * the `filter` and `must_not` of a bool query. Tombstones of removed records (docs/changes.md) stay in the index so
 * a late write cannot bring a record back, and are never part of an answer.
 */
export function copyScope(connectorId: string): { filter: QueryClause[]; must_not: QueryClause[] } {
  return {
    filter: [{ term: { [INTERNAL_FIELDS.connectorId]: connectorId } }],
    must_not: [{ term: { [INTERNAL_FIELDS.deleted]: true } }],
  };
}

/**
 * Stage 3: a validated search as an OpenSearch request body. Always filtered by connector; sorted by the
 * requested keys (missing values last either way), then by record key, so order is total and `search_after`
 * paging never repeats or skips; fetches `limit + 1` hits to know `has_more`.
 *
 * @throws SearchQueryError `invalid_cursor` when the cursor is forged or belongs to another query.
 */
export function compileSearch(search: ValidatedSearch, options: CompileOptions): CompiledSearch {
  // Hashed when a cursor is read or written, not before: most searches do neither.
  let queryHash: string | undefined;
  const binding: CursorBinding = {
    connectorId: options.connectorId,
    entity: options.entity,
    get queryHash() {
      queryHash ??= hashQuery({
        filter: search.params.query.filter ?? null,
        sort: search.params.query.sort ?? [],
        fields: search.fields,
        // Absent (undefined) from the hash of every other search, whose cursors stay valid.
        semantic: search.params.query.semantic,
      });
      return queryHash;
    },
  };
  const sort: QueryClause[] = [
    ...search.sort.map(({ field, direction }) => ({
      [exactField(field)]: { order: direction, missing: missingLast(field, direction) },
    })),
    { [INTERNAL_FIELDS.key]: { order: 'asc' } },
  ];
  const searchAfter =
    search.cursor === undefined ? undefined : decodeCursor(search.cursor, binding, options.cursorKey, sort.length);
  const filter = compileFilter(search.filter);
  // JSON clients read int64 sort values as doubles, so 9007199254740993 would come back as ...992 and the next
  // page would repeat a record. The record itself holds the exact value; readSearchPage takes it from there.
  // Decimals sort by their scaled long, so the same holds for them.
  const exactSortValues = search.sort.flatMap(({ field }, index) => {
    const type = field.storage === 'typed' ? field.spec.type : undefined;
    return type === 'integer' || type === 'decimal' ? [{ index, path: field.path, type }] : [];
  });
  const body: SearchBody = {
    // `limit: 0` asks for totals and aggregations only.
    size: search.limit === 0 ? 0 : search.limit + 1,
    query: {
      bool: {
        filter: [...copyScope(options.connectorId).filter, ...(search.filter.kind === 'MatchAllNode' ? [] : [filter])],
        must_not: copyScope(options.connectorId).must_not,
      },
    },
    sort,
    _source: {
      // The engine compiles its include patterns for every request: one per field cost it more than the rest of
      // an id lookup, for the same bytes back (docs/benchmarks/code-measurements.md).
      includes: search.wholeRecord
        ? [INTERNAL_FIELDS.key, INTERNAL_FIELDS.record]
        : [
            INTERNAL_FIELDS.key,
            ...[...search.fields, ...exactSortValues.map((e) => e.path)].map((f) => `${INTERNAL_FIELDS.record}.${f}`),
          ],
    },
    track_total_hits: SEARCH_LIMITS.exactTotalUpTo,
    ...(searchAfter ? { search_after: searchAfter } : {}),
    ...(search.aggregations.length > 0 ? { aggs: compileAggregations(search.aggregations) } : {}),
  };
  return {
    body,
    page: {
      limit: search.limit,
      exactSortValues,
      fields: search.fields,
      literalFields: options.literalFields ?? NO_LITERAL_FIELDS,
      aggregations: search.aggregations,
      binding,
      cursorKey: options.cursorKey,
    },
  };
}
