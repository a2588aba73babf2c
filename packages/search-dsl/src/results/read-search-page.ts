import { z } from 'zod';
import type { PageContext } from '../compile/opensearch/compile-search.ts';
import { encodeCursor, type SearchAfter } from '../cursor/cursor.ts';
import { toScaledDecimal } from '../fields/decimal.ts';
import { INTERNAL_FIELDS } from '../fields/field-resolution.ts';
import { getPath, setPath } from '../fields/paths.ts';
import { isPlainObject, toInteger } from '../fields/values.ts';

export type SearchRecord = Record<string, unknown>;

export type SearchPage = {
  readonly data: SearchRecord[];
  readonly meta: { readonly has_more: boolean; readonly cursor: string | null; readonly took_ms: number | null };
};

const SearchResponse = z.object({
  took: z.number().optional(),
  hits: z.object({
    hits: z.array(
      z.object({
        _source: z.record(z.string(), z.unknown()).optional(),
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
  const record = isPlainObject(source) ? source[INTERNAL_FIELDS.record] : undefined;
  const out: SearchRecord = {};
  // Shorter paths first, so a whole object wins over one of its sub-paths.
  for (const field of [...fields].sort((a, b) => a.length - b.length)) {
    const value = getPath(record, field);
    if (value !== undefined) setPath(out, field, value);
  }
  return out;
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
  const parsed = SearchResponse.parse(response);
  const hits = parsed.hits.hits;
  const shown = hits.slice(0, page.limit);
  const hasMore = hits.length > page.limit;
  const last = shown[shown.length - 1];
  if (hasMore && !last?.sort) throw new Error('search response hits carry no sort values');
  return {
    data: shown.map((hit) => projectSource(hit._source, page.fields)),
    meta: {
      has_more: hasMore,
      cursor: hasMore && last?.sort ? encodeCursor(exactSortValues(last, page), page.binding, page.cursorKey) : null,
      took_ms: parsed.took ?? null,
    },
  };
}
