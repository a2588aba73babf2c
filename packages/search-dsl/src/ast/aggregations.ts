import type { ScalarType } from '@conduit/connectors';
import type { FieldRef } from '../fields/field-resolution.ts';
import type { HistogramInterval } from '../params/search-params-schema.ts';
import { kindFactory, type Visitor, visit } from './kinds.ts';

/**
 * Aggregation nodes: the validated form of `params.aggregate`, one node per named aggregation. Like the filter
 * nodes, a closed union with one kind per operation, so every stage (compiler, response reader, reference
 * evaluator) is a `Record` over the kinds and a new kind breaks each of them until it is handled.
 * `type` is the scalar type of the field's values (the item type for arrays of scalars under `count_by`).
 */
type Base = { readonly name: string; readonly field: FieldRef; readonly type: ScalarType };
const factory = kindFactory<AggNode>();

/** The most frequent values, `size` of them: most first, then by value. */
export type CountByAgg = Base & { readonly kind: 'CountByAgg'; readonly size: number };
export const CountByAgg = factory('CountByAgg');
/** Records per UTC calendar bucket of a date-time field, empty buckets between the first and last included. */
export type HistogramAgg = Base & { readonly kind: 'HistogramAgg'; readonly interval: HistogramInterval };
export const HistogramAgg = factory('HistogramAgg');

/** The metrics: one value from the field's values, with no parameter of their own (a kind each, like the rest). */
type MetricKind = 'SumAgg' | 'AvgAgg' | 'MinAgg' | 'MaxAgg' | 'CountAgg' | 'DistinctAgg';
type MetricAgg<K extends MetricKind = MetricKind> = K extends MetricKind ? Base & { readonly kind: K } : never;
export const SumAgg = factory('SumAgg');
export const AvgAgg = factory('AvgAgg');
export const MinAgg = factory('MinAgg');
export const MaxAgg = factory('MaxAgg');
/** Records with a value (SQL's `COUNT(col)`). */
export const CountAgg = factory('CountAgg');
/**
 * Distinct values (SQL's `COUNT(DISTINCT col)`): the engine's HyperLogLog++ `cardinality`, so approximate; exact
 * in practice below `DISTINCT_PRECISION` values (see compile-aggregations.ts).
 */
export const DistinctAgg = factory('DistinctAgg');

export type AggNode = CountByAgg | HistogramAgg | MetricAgg;
export type AggKind = AggNode['kind'];
export type AggVisitor<R> = Visitor<AggNode, R>;

export function visitAgg<R>(node: AggNode, visitor: AggVisitor<R>): R {
  return visit(node, visitor);
}

/** A count_by or histogram bucket. Keys: strings, numbers, booleans; decimals as strings; dates as ISO instants. */
export type AggBucket = { readonly key: string | number | boolean; readonly count: number };

/**
 * The answer of one aggregation in `meta.aggregations`: buckets for count_by and histogram, `{value}` for the
 * metrics. Metric values: numbers for number and integer fields, exact decimal strings for decimals, ISO instants
 * for dates; `null` when no matching record has a value (sum is then 0).
 */
export type AggResult = readonly AggBucket[] | { readonly value: number | string | null };
