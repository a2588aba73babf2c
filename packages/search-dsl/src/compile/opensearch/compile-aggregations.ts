import { type AggNode, type AggVisitor, visitAgg } from '../../ast/aggregations.ts';
import {
  decimalSumFields,
  exactField,
  type FieldRef,
  INTERNAL_FIELDS,
  scalarTypeOf,
} from '../../fields/field-resolution.ts';
import type { QueryClause } from './compile-filter.ts';

/**
 * Stage 3b: aggregation nodes as OpenSearch aggregations, one entry per node under a generated name (`a0`, `a1`,
 * ... in request order), so caller-chosen names never meet the engine's syntax for agg paths. They run over the
 * search's query, which already holds only this connector's matching records. Searches are routed by connector,
 * so they run on one shard and `terms` counts are exact.
 * Exactness: decimals sum their units and fractions separately (see fields/decimal.ts); min/max of integers and
 * decimals come from the top record in the field's order (its exact upstream value), not from the engine's
 * `min`/`max`, which work in doubles.
 */
export function compileAggregations(nodes: readonly AggNode[]): Record<string, QueryClause> {
  return Object.fromEntries(nodes.map((node, i) => [aggregationKey(i), visitAgg(node, compiler)]));
}

/**
 * The `precision_threshold` of distinct counts: the engine's maximum. Below it the count is expected to be close
 * to exact (it keeps a set of 32-bit hashes, so two values can still collide); above it the error is a few
 * percent. https://opensearch.org/docs/latest/aggregations/metric/cardinality/
 */
export const DISTINCT_PRECISION = 40_000;

export function aggregationKey(index: number): string {
  return `a${index}`;
}

/** Integers and decimals are read from the record, exactly (see `compileAggregations`). */
export function exactExtreme(field: FieldRef): boolean {
  const type = scalarTypeOf(field);
  return type === 'integer' || type === 'decimal';
}

const topRecord = (field: FieldRef, order: 'asc' | 'desc'): QueryClause => ({
  filter: { exists: { field: exactField(field) } },
  aggs: {
    top: {
      top_hits: {
        size: 1,
        sort: [{ [exactField(field)]: { order } }],
        _source: { includes: [`${INTERNAL_FIELDS.record}.${field.path}`] },
      },
    },
  },
});

const metric = (op: 'sum' | 'avg' | 'min' | 'max', field: FieldRef): QueryClause => ({
  [op]: { field: exactField(field) },
});

/** Units and fractions summed apart, the largest scale written, and the count for averages. */
const decimalSums = (field: FieldRef): QueryClause => {
  const { units, fraction, scale } = decimalSumFields(field);
  return {
    filter: { exists: { field: exactField(field) } },
    aggs: {
      units: { sum: { field: units } },
      fraction: { sum: { field: fraction } },
      scale: { max: { field: scale } },
    },
  };
};

const compiler: AggVisitor<QueryClause> = {
  CountByAgg: ({ field, size, type }) => ({
    terms: {
      field: exactField(field),
      size,
      order: [{ _count: 'desc' }, { _key: 'asc' }],
      // JSON numbers lose int64 digits; the `0` pattern makes the engine also print each key exactly.
      ...(type === 'integer' || type === 'decimal' ? { format: '0' } : {}),
    },
  }),
  SumAgg: ({ field, type }) => (type === 'decimal' ? decimalSums(field) : metric('sum', field)),
  AvgAgg: ({ field, type }) => (type === 'decimal' ? decimalSums(field) : metric('avg', field)),
  MinAgg: ({ field }) => (exactExtreme(field) ? topRecord(field, 'asc') : metric('min', field)),
  MaxAgg: ({ field }) => (exactExtreme(field) ? topRecord(field, 'desc') : metric('max', field)),
  CountAgg: ({ field }) => ({ filter: { exists: { field: exactField(field) } } }),
  DistinctAgg: ({ field }) => ({
    cardinality: { field: exactField(field), precision_threshold: DISTINCT_PRECISION },
  }),
  HistogramAgg: ({ field, interval }) => ({
    date_histogram: {
      field: exactField(field),
      calendar_interval: interval,
      time_zone: 'UTC',
      // Empty buckets between the first and the last one are returned too.
      min_doc_count: 0,
    },
  }),
};
