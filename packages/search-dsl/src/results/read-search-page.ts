import { z } from 'zod';
import type { AggResult } from '../ast/aggregations.ts';
import type { PageContext } from '../compile/opensearch/compile-search.ts';
import { encodeCursor, type SearchAfter } from '../cursor/cursor.ts';
import { pointer, SearchQueryError } from '../errors.ts';
import { toScaledDecimal } from '../fields/decimal.ts';
import { INTERNAL_FIELDS } from '../fields/field-resolution.ts';
import { getPath, getSegments, setSegments } from '../fields/paths.ts';
import { isPlainObject, toInteger } from '../fields/values.ts';
import { emptyAggregations, readAggregations } from './read-aggregations.ts';

export type SearchRecord = Record<string, unknown>;

export type SearchTotal = { readonly value: number; readonly exact: boolean };

export type SearchPage = {
  readonly data: SearchRecord[];
  readonly meta: {
    readonly has_more: boolean;
    readonly cursor: string | null;
    readonly took_ms: number | null;
    /** Matching records, counted exactly up to 10,000 (`exact: false` beyond). */
    readonly total: SearchTotal;
    /** Present when `params.aggregate` asked for aggregations, by their names. */
    readonly aggregations?: Record<string, AggResult>;
  };
};

const SearchResponse = z.object({
  took: z.number().optional(),
  hits: z.object({
    total: z.object({ value: z.number(), relation: z.enum(['eq', 'gte']) }).optional(),
    hits: z.array(
      z.object({
        // Checked, not copied: a record's keys are the upstream's, and copying each would double the answer's
        // objects (a third of reading a ten-record page).
        _source: z.custom<Record<string, unknown>>(isPlainObject, 'must be an object').optional(),
        sort: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
      }),
    ),
  }),
});

/**
 * Projects a hit's `_source` to the result record: only `fields`, at their dotted paths, with the values exactly
 * as the upstream sent them. A path without a value is left out.
 */
export function projectSource(source: unknown, fields: readonly string[]): SearchRecord {
  return projection(fields)(source);
}

/** `projectSource` for many hits: the paths are ordered and split once, not once per hit. */
function projection(fields: readonly string[]): (source: unknown) => SearchRecord {
  // Shorter paths first, so a whole object wins over one of its sub-paths.
  const paths = [...fields].sort((a, b) => a.length - b.length).map((field) => field.split('.'));
  return (source) => {
    const record = isPlainObject(source) ? source[INTERNAL_FIELDS.record] : undefined;
    const out: SearchRecord = {};
    for (const segments of paths) {
      const value = getSegments(record, segments);
      if (value !== undefined) setSegments(out, segments, value);
    }
    return out;
  };
}

type Hit = z.infer<typeof SearchResponse>['hits']['hits'][number];

/** The hit's sort values, with int64 keys replaced by the exact decimal the record holds (a missing one keeps the engine's sentinel). */
function exactSortValues(hit: Hit, page: PageContext): SearchAfter {
  const values = [...(hit.sort ?? [])];
  const record = hit._source?.[INTERNAL_FIELDS.record];
  for (const { index, path, type } of page.exactSortValues) {
    const value = getPath(record, path);
    const exact = type === 'integer' ? toInteger(value) : toScaledDecimal(value)?.toString();
    if (exact !== undefined) values[index] = exact;
  }
  return values;
}

/**
 * Stage 4: an OpenSearch `_search` response (body) as the `search` action's page.
 *
 * @example
 * const { body, page } = planSearch(params, options);
 * const res = await client.search({ index, body });
 * return readSearchPage(res.body, page);
 */
export function readSearchPage(response: unknown, page: PageContext): SearchPage {
  if (isPlainObject(response) && response.error !== undefined) throw engineError(response, page);
  const parsed = SearchResponse.parse(response);
  const hits = parsed.hits.hits;
  const shown = hits.slice(0, page.limit);
  const hasMore = hits.length > page.limit;
  const last = shown[shown.length - 1];
  const project = projection(page.fields);
  if (hasMore && !last?.sort) throw new Error('search response hits carry no sort values');
  return {
    data: shown.map((hit) => project(hit._source)),
    meta: {
      has_more: hasMore,
      cursor: hasMore && last?.sort ? encodeCursor(exactSortValues(last, page), page.binding, page.cursorKey) : null,
      took_ms: parsed.took ?? null,
      total: parsed.hits.total
        ? { value: parsed.hits.total.value, exact: parsed.hits.total.relation === 'eq' }
        : { value: hits.length, exact: !hasMore },
      ...(page.aggregations.length > 0 ? { aggregations: readAggregations(response, page.aggregations) } : {}),
    },
  };
}

/**
 * The caller's part of an engine error answer (`{error: ...}`), or undefined when the error is not theirs to fix.
 * Too many histogram buckets (the engine's `search.max_buckets`, 65,535) is: a 400 at the histograms.
 *
 * @example catch (e) { throw searchProblemOf(e.body, plan.page) ?? new ApiError(503, ...) }
 */
export function searchProblemOf(errorAnswer: unknown, page: PageContext): SearchQueryError | undefined {
  const text = JSON.stringify(isPlainObject(errorAnswer) ? (errorAnswer.error ?? null) : null);
  if (!text.includes('too_many_buckets_exception')) return undefined;
  const histograms = page.aggregations.filter((a) => a.kind === 'HistogramAgg');
  return new SearchQueryError(
    'invalid_filter',
    (histograms.length > 0 ? histograms.map((h) => pointer(['aggregate', h.name])) : ['/aggregate']).map((path) => ({
      path,
      message: 'the histogram would have more than 65535 buckets; use a longer interval or a narrower filter',
    })),
  );
}

function engineError(response: Record<string, unknown>, page: PageContext): Error {
  return (
    searchProblemOf(response, page) ??
    new Error(`the search engine answered an error: ${JSON.stringify(response.error).slice(0, 300)}`)
  );
}

/** The page when there is nothing to search yet (the entity's index does not exist: no sync has written to it). */
export function emptySearchPage(page: PageContext): SearchPage {
  return {
    data: [],
    meta: {
      has_more: false,
      cursor: null,
      took_ms: null,
      total: { value: 0, exact: true },
      ...(page.aggregations.length > 0 ? { aggregations: emptyAggregations(page.aggregations) } : {}),
    },
  };
}
