import type { AggNode } from '../ast/aggregations.ts';
import { compileAggregations } from '../compile/opensearch/compile-aggregations.ts';
import { compileFilter, type QueryClause } from '../compile/opensearch/compile-filter.ts';
import { copyScope } from '../compile/opensearch/compile-search.ts';
import { exactField } from '../fields/field-resolution.ts';
import type { GroupsQuery } from './sql-tree.ts';

/** The engine's name of group key `i` in composite keys and `after`. */
export const keyName = (i: number) => `k${i}`;

/** The aggregation nodes of a query's measures (COUNT(*) is the bucket's own count). */
export function aggNodes(query: GroupsQuery): AggNode[] {
  return query.measures.flatMap((m) => ('agg' in m ? [m.agg] : []));
}

/**
 * Whether the groups can come out of the engine in the requested order: ORDER BY names only group keys, so the
 * composite aggregation's own key order is the answer's, and pages follow `after` (otherwise every group is read,
 * then sorted: see runSql).
 */
export function orderedByKeys(query: GroupsQuery): boolean {
  return query.order.every((o) => o.operand.kind === 'key');
}

/**
 * Stage 3 of SQL, grouping queries: one `_search` with no hits and one aggregation `g` over the connector's
 * matching records (the filter compiled by the search language's own compiler). With GROUP BY, `g` is a composite
 * aggregation (a source per key: `terms` on the key's exact field, `date_histogram` in UTC for DATE_TRUNC; null
 * keys are a group of their own, last either way), which pages through every group with `after`; without, `g` is
 * one bucket of every record. The aggregates are the search language's aggregations under each bucket.
 * https://opensearch.org/docs/latest/aggregations/bucket/composite/
 */
export function compileGroups(
  query: GroupsQuery,
  connectorId: string,
  page: { readonly size: number; readonly after: Readonly<Record<string, unknown>> | undefined },
): Record<string, unknown> {
  const metrics = compileAggregations(aggNodes(query));
  const sub = Object.keys(metrics).length > 0 ? { aggs: metrics } : {};
  const first = orderedByKeys(query)
    ? query.order.flatMap((o) => (o.operand.kind === 'key' ? [o.operand.index] : []))
    : [];
  const sequence = [...new Set([...first, ...query.keys.map((_, i) => i)])];
  const directionOf = (i: number) =>
    query.order.find((o) => o.operand.kind === 'key' && o.operand.index === i)?.direction ?? 'asc';
  const sources = sequence.map((i) => {
    const key = query.keys[i]!;
    const common = { field: exactField(key.field), missing_bucket: true, missing_order: 'last', order: directionOf(i) };
    const source: QueryClause = key.trunc
      ? { date_histogram: { ...common, calendar_interval: key.trunc, time_zone: 'UTC' } }
      : { terms: common };
    return { [keyName(i)]: source };
  });
  const g =
    query.keys.length === 0
      ? { filter: { match_all: {} }, ...sub }
      : { composite: { size: page.size, sources, ...(page.after ? { after: page.after } : {}) }, ...sub };
  return {
    size: 0,
    track_total_hits: false,
    query: {
      bool: {
        // The connector's live documents only, as every search: tombstones are never counted.
        filter: [
          ...copyScope(connectorId).filter,
          ...(query.filter.kind === 'MatchAllNode' ? [] : [compileFilter(query.filter)]),
        ],
        must_not: copyScope(connectorId).must_not,
      },
    },
    aggs: { g },
  };
}
