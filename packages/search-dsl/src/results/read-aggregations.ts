import { z } from 'zod';
import { type AggBucket, type AggNode, type AggResult, type AggVisitor, visitAgg } from '../ast/aggregations.ts';
import { aggregationKey, exactExtreme } from '../compile/opensearch/compile-aggregations.ts';
import { divideScaled, formatScaledDecimal, joinDecimalSums, toScaledDecimal } from '../fields/decimal.ts';
import { INTERNAL_FIELDS } from '../fields/field-resolution.ts';
import { isoInstant } from '../fields/iso-instant.ts';
import { getPath } from '../fields/paths.ts';
import { toInteger } from '../fields/values.ts';

const Bucket = z.object({
  key: z.union([z.string(), z.number()]),
  key_as_string: z.string().optional(),
  doc_count: z.number(),
});
const Buckets = z.object({ buckets: z.array(Bucket) });
/** Built once: zod compiles an object schema on its first parse, so one built per call was compiled per search. */
const Aggregations = z.object({ aggregations: z.record(z.string(), z.unknown()) });
const Value = z.object({ value: z.number().nullable() });
const DocCount = z.object({ doc_count: z.number() });
const Sums = z.object({ doc_count: z.number(), units: Value, fraction: Value, scale: Value.optional() });
const Top = z.object({
  top: z.object({
    hits: z.object({ hits: z.array(z.object({ _source: z.record(z.string(), z.unknown()).optional() })) }),
  }),
});

type Raw = unknown;

/**
 * Stage 4b: the engine's aggregation answers as `meta.aggregations`, by the caller's names. Values take the form
 * docs/search.md promises: decimals and integers as exact decimal strings (integer sums are exact while the total
 * stays below 2^53), numbers as numbers, dates as ISO instants; `null` when no matching record has a value.
 */
export function readAggregations(response: unknown, nodes: readonly AggNode[]): Record<string, AggResult> {
  const { aggregations } = Aggregations.parse(response);
  return Object.fromEntries(
    nodes.map((node, i) => [node.name, visitAgg(node, reader(aggregations[aggregationKey(i)]))] as const),
  );
}

/** The answer when there is nothing to aggregate (no index yet): what the engine would say over no records. */
export function emptyAggregations(nodes: readonly AggNode[]): Record<string, AggResult> {
  return Object.fromEntries(nodes.map((node) => [node.name, visitAgg(node, empty)] as const));
}

const iso = (millis: number | null): string | null => (millis === null ? null : isoInstant(Math.round(millis)));

function countByKey(node: AggNode, bucket: z.infer<typeof Bucket>): AggBucket['key'] {
  switch (node.type) {
    case 'integer':
      return bucket.key_as_string ?? String(bucket.key);
    case 'decimal':
      return formatScaledDecimal(BigInt(bucket.key_as_string ?? String(bucket.key)));
    case 'boolean':
      return bucket.key === 1 || bucket.key === 'true' || bucket.key_as_string === 'true';
    case 'datetime':
      return iso(Number(bucket.key))!;
    case 'number':
      return Number(bucket.key);
    case 'string':
      return String(bucket.key);
  }
}

function exactTop(node: AggNode, raw: Raw): string | null {
  const hit = Top.parse(raw).top.hits.hits[0];
  if (!hit) return null;
  const value = getPath(hit._source?.[INTERNAL_FIELDS.record], node.field.path);
  if (node.type === 'integer') return toInteger(value) ?? null;
  const scaled = toScaledDecimal(value);
  return scaled === undefined ? null : formatScaledDecimal(scaled);
}

function extreme(node: AggNode, raw: Raw): { value: number | string | null } {
  if (exactExtreme(node.field)) return { value: exactTop(node, raw) };
  const { value } = Value.parse(raw);
  return { value: node.type === 'datetime' ? iso(value) : value };
}

function decimalSum(raw: Raw): { sum: bigint; count: number; scale: number } {
  const sums = Sums.parse(raw);
  return {
    sum: joinDecimalSums(sums.units.value ?? 0, sums.fraction.value ?? 0),
    count: sums.doc_count,
    // Documents indexed before the scale was kept have none: the shortest text then.
    scale: sums.scale?.value ?? 0,
  };
}

function reader(raw: Raw): AggVisitor<AggResult> {
  return {
    CountByAgg: (node) => Buckets.parse(raw).buckets.map((b) => ({ key: countByKey(node, b), count: b.doc_count })),
    SumAgg: (node) => {
      if (node.type === 'decimal') {
        const { sum, scale } = decimalSum(raw);
        return { value: formatScaledDecimal(sum, scale) };
      }
      const value = Value.parse(raw).value ?? 0;
      return { value: node.type === 'integer' ? BigInt(Math.round(value)).toString() : value };
    },
    AvgAgg: (node) => {
      if (node.type === 'decimal') {
        const { sum, count } = decimalSum(raw);
        return { value: count === 0 ? null : formatScaledDecimal(divideScaled(sum, count)) };
      }
      const { value } = Value.parse(raw);
      return { value: node.type === 'datetime' ? iso(value) : value };
    },
    MinAgg: (node) => extreme(node, raw),
    MaxAgg: (node) => extreme(node, raw),
    HistogramAgg: () => Buckets.parse(raw).buckets.map((b) => ({ key: iso(Number(b.key))!, count: b.doc_count })),
    CountAgg: () => ({ value: DocCount.parse(raw).doc_count }),
    DistinctAgg: () => ({ value: Value.parse(raw).value ?? 0 }),
  };
}

const empty: AggVisitor<AggResult> = {
  CountByAgg: () => [],
  SumAgg: (node) => ({ value: node.type === 'number' ? 0 : '0' }),
  AvgAgg: () => ({ value: null }),
  MinAgg: () => ({ value: null }),
  MaxAgg: () => ({ value: null }),
  HistogramAgg: () => [],
  CountAgg: () => ({ value: 0 }),
  DistinctAgg: () => ({ value: 0 }),
};
