import type { SearchTotal } from './generated/api.ts';
/**
 * The search language (docs/search.md) typed per entity. Each searchable entity has a generated `…SearchFields` map
 * (src/generated/catalog.ts) saying which field paths each operator takes and with which value type; `Filter`
 * turns it into the shape of `query.filter`, so a misspelt field, an operator that does not apply to a field
 * (`gt` on a boolean, `fuzzy` on a number) or a value of the wrong type does not compile.
 */

/** The generated per-scope map (the entity's searchable fields, or an array's item fields under `any`). */
export interface SearchFields {
  eq: object;
  range: object;
  like: object;
  text: object;
  contains: object;
  any: object;
  sort: string;
  count_by: string;
  sum: string;
  metric: string;
  histogram: string;
  fields: string;
}

type InValues<M> = { [K in keyof M]?: readonly Exclude<M[K], null | undefined>[] };
type AnyFilters<M> = { [K in keyof M]?: NonNullable<M[K]> extends SearchFields ? Filter<NonNullable<M[K]>> : never };

/** One condition; several operators, or several fields in one operator, are ANDed. */
export interface Filter<S extends SearchFields> {
  eq?: S['eq'];
  neq?: S['eq'];
  gt?: S['range'];
  gte?: S['range'];
  lt?: S['range'];
  lte?: S['range'];
  in?: InValues<S['eq']>;
  /** Case-insensitive pattern: `%` any run, `_` one character, `\` escapes; without either, a substring. */
  like?: S['like'];
  /** All words, any order, typo-tolerant. */
  fuzzy?: S['text'];
  /** Any of the words. */
  keyword?: S['text'];
  /** An array field holds the value. */
  contains?: S['contains'];
  /** An array of objects has an element matching the nested condition. */
  any?: AnyFilters<S['any']>;
  not?: Filter<S>;
  and?: readonly Filter<S>[];
  or?: readonly Filter<S>[];
}

export type SortEntry<S extends SearchFields> = { [K in S['sort']]: { [P in K]: 'asc' | 'desc' } }[S['sort']];

export interface SearchQuery<S extends SearchFields> {
  filter?: Filter<S>;
  /** Ties are broken by the record key; missing values sort last. */
  sort?: readonly SortEntry<S>[];
}

/** One aggregation over the records that match the filter (docs/search.md, `params.aggregate`). */
export type Aggregation<S extends SearchFields> =
  | { count_by: S['count_by']; size?: number }
  | { sum: S['sum'] }
  | { avg: S['metric'] }
  | { min: S['metric'] }
  | { max: S['metric'] }
  | { histogram: S['histogram'] /** UTC buckets. */; interval: 'hour' | 'day' | 'week' | 'month' };

export interface Bucket {
  key: string | number | boolean;
  count: number;
}

/** count_by and histogram answer buckets (most first / in time order); the metrics answer one value. */
export type AggregationResult<A> = A extends { count_by: unknown } | { histogram: unknown }
  ? Bucket[]
  : { value: number | string | null };

export type AggregationResults<G> = { [K in keyof G]: AggregationResult<G[K]> };

/** `params` of the `search` action. */
export interface SearchParams<
  S extends SearchFields,
  G extends Record<string, Aggregation<S>> = Record<string, Aggregation<S>>,
> {
  query: SearchQuery<S>;
  /** 1–10000, default 1000. */
  limit?: number;
  /** `meta.cursor` of the previous page (same query and connector only). */
  cursor?: string;
  /** Dot paths; results hold only those. Default: every searchable field. */
  fields?: readonly S['fields'][];
  /** Named aggregations, answered in `meta.aggregations`; with `limit: 0`, only those. */
  aggregate?: G;
}

export interface SearchMeta<G = Record<string, unknown>> {
  has_more: boolean;
  cursor: string | null;
  took_ms: number | null;
  /** End of the entity's last completed pass (ISO 8601), null before the first. */
  synced_at?: string | null;
  total?: SearchTotal;
  aggregations?: AggregationResults<G>;
}

export interface SearchResult<R, G = Record<string, unknown>> {
  data: R[];
  meta: SearchMeta<G>;
}
