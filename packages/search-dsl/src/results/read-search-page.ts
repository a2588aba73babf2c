import { isPlainObject } from '@conduit/connectors';
import { z } from 'zod';
import type { AggResult } from '../ast/aggregations.ts';
import type { PageContext } from '../compile/opensearch/compile-search.ts';
import { encodeCursor, type SearchAfter } from '../cursor/cursor.ts';
import { pointer, SearchQueryError } from '../errors.ts';
import { toScaledDecimal } from '../fields/decimal.ts';
import { INTERNAL_FIELDS } from '../fields/field-resolution.ts';
import { getPath, getSegments, setSegments } from '../fields/paths.ts';
import { toInteger } from '../fields/values.ts';
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

/** The parts of an engine answer a page reads besides the records (here and in search-page-json.ts). */
export const EngineTook = z.number().optional();
export const EngineTotal = z.object({ value: z.number(), relation: z.enum(['eq', 'gte']) }).optional();
export const EngineSortValues = z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).optional();

const SearchResponse = z.object({
  took: EngineTook,
  hits: z.object({
    total: EngineTotal,
    hits: z.array(
      z.object({
        // Checked, not copied: a record's keys are the upstream's, and copying each would double the answer's
        // objects (docs/benchmarks/code-measurements.md).
        _source: z.custom<Record<string, unknown>>(isPlainObject, 'must be an object').optional(),
        sort: EngineSortValues,
      }),
    ),
  }),
});

/**
 * Projects a hit's `_source` to the result record: only `fields`, at their dotted paths, with the values exactly
 * as the upstream sent them; a field in `literal` stays one key under its dotted name, as the upstream names it.
 * A path without a value is left out.
 */
export function projectSource(
  source: unknown,
  fields: readonly string[],
  literal: ReadonlySet<string> = new Set(),
): SearchRecord {
  return projection(fields, literal)(source);
}

/** `projectSource` for many hits: the paths are ordered and split once, not once per hit. */
function projection(fields: readonly string[], literal: ReadonlySet<string>): (source: unknown) => SearchRecord {
  // Shorter paths first, so a whole object wins over one of its sub-paths.
  const paths = [...fields]
    .sort((a, b) => a.length - b.length)
    .map((field) => ({ field, segments: field.split('.'), flat: literal.has(field) }));
  return (source) => {
    const record = isPlainObject(source) ? source[INTERNAL_FIELDS.record] : undefined;
    const out: SearchRecord = {};
    for (const { field, segments, flat } of paths) {
      const value = getSegments(record, segments);
      if (value === undefined) continue;
      if (flat) out[field] ??= value;
      else setSegments(out, segments, value);
    }
    return out;
  };
}

/**
 * The cursor after a hit: its sort values, with int64 keys replaced by the exact decimal its record holds (a
 * missing one keeps the engine's sentinel).
 */
export function cursorAfter(sort: SearchAfter, record: unknown, page: PageContext): string {
  const values = [...sort];
  for (const { index, path, type } of page.exactSortValues) {
    const value = getPath(record, path);
    const exact = type === 'integer' ? toInteger(value) : toScaledDecimal(value)?.toString();
    if (exact !== undefined) values[index] = exact;
  }
  return encodeCursor(values, page.binding, page.cursorKey);
}

/** `meta.total`: the engine's count, or (when it sent none) the hits that came back. */
export function totalOf(total: z.infer<typeof EngineTotal>, hits: number, hasMore: boolean): SearchTotal {
  return total ? { value: total.value, exact: total.relation === 'eq' } : { value: hits, exact: !hasMore };
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
  const parsed = SearchResponse.parse(withHits(response));
  const hits = parsed.hits.hits;
  const shown = hits.slice(0, page.limit);
  const hasMore = hits.length > page.limit;
  const last = shown[shown.length - 1];
  const project = projection(page.fields, page.literalFields);
  if (hasMore && !last?.sort) throw new Error('search response hits carry no sort values');
  return {
    data: shown.map((hit) => project(hit._source)),
    meta: {
      has_more: hasMore,
      cursor: hasMore && last?.sort ? cursorAfter(last.sort, last._source?.[INTERNAL_FIELDS.record], page) : null,
      took_ms: parsed.took ?? null,
      total: totalOf(parsed.hits.total, hits.length, hasMore),
      ...(page.aggregations.length > 0 ? { aggregations: readAggregations(response, page.aggregations) } : {}),
    },
  };
}

/** The engine leaves `hits` out of a filtered answer when nothing matched. */
function withHits(response: unknown): unknown {
  const answer = response as { hits?: { hits?: unknown[] } };
  if (!isPlainObject(answer) || answer.hits?.hits) return answer;
  return { ...answer, hits: { ...answer.hits, hits: [] } };
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
