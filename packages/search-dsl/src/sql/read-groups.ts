import { z } from 'zod';
import { formatScaledDecimal } from '../fields/decimal.ts';
import { isoInstant } from '../fields/iso-instant.ts';
import { emptyAggregations, readAggregations } from '../results/read-aggregations.ts';
import { aggNodes, keyName } from './compile-groups.ts';
import type { GroupRow } from './group-values.ts';
import type { GroupKey, GroupsQuery } from './sql-tree.ts';

const KeyValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const Bucket = z.looseObject({ key: z.record(z.string(), KeyValue).optional(), doc_count: z.number() });
const Composite = z.object({ after_key: z.record(z.string(), KeyValue).optional(), buckets: z.array(Bucket) });
const Answer = z.object({ took: z.number().optional(), aggregations: z.object({ g: z.unknown() }) });

export type GroupsAnswer = {
  readonly took: number;
  /** Each group with the engine's raw key (for `after`) and its values. */
  readonly groups: readonly { readonly after: Readonly<Record<string, unknown>>; readonly row: GroupRow }[];
  /** The engine's position after this batch, or undefined when it was the last. */
  readonly afterKey: Readonly<Record<string, unknown>> | undefined;
};

/**
 * The engine's answer as JSON, with int64 keys of composite buckets (`k0`, `k1`, ...) kept exact as strings:
 * a JSON number beyond 2^53 would round, and the next page's `after` would then skip or repeat a group.
 */
export function parseEngineJson(bytes: Buffer | string): unknown {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  const plain = JSON.parse(text) as { aggregations?: { g?: { buckets?: { key?: Record<string, unknown> }[] } } };
  // Reading every value's source text costs; only an answer with a key beyond 2^53 is read again that way.
  const keys = plain.aggregations?.g?.buckets ?? [];
  const exact = keys.every((b) =>
    Object.values(b.key ?? {}).every((v) => typeof v !== 'number' || Number.isSafeInteger(v) || !Number.isInteger(v)),
  );
  if (exact) return plain;
  return JSON.parse(text, function keepInt64(key, value, context?: { source?: string }) {
    if (
      typeof value === 'number' &&
      !Number.isSafeInteger(value) &&
      /^k\d+$/.test(key) &&
      context?.source &&
      /^-?\d+$/.test(context.source)
    ) {
      return context.source;
    }
    return value;
  });
}

/** Stage 4 of SQL, grouping queries: the buckets of one answer as rows of key values and aggregates. */
export function readGroups(json: unknown, query: GroupsQuery, batchSize: number): GroupsAnswer {
  const answer = Answer.parse(json);
  const composite = query.keys.length > 0 ? Composite.parse(answer.aggregations.g) : undefined;
  const nodes = aggNodes(query);
  const buckets = composite ? composite.buckets : [Bucket.parse(answer.aggregations.g)];
  const groups = buckets.map((bucket) => {
    const values = readAggregations({ aggregations: bucket }, nodes);
    const keys = query.keys.map((key, i) => keyValue(bucket.key?.[keyName(i)] ?? null, key));
    const measures = query.measures.map((m) =>
      'agg' in m ? (values[m.agg.name] as { value: unknown }).value : bucket.doc_count,
    );
    return { after: bucket.key ?? {}, row: { keys, measures } };
  });
  const more = composite?.after_key !== undefined && buckets.length >= batchSize;
  return { took: answer.took ?? 0, groups, afterKey: more ? composite?.after_key : undefined };
}

/** The one group of a query without GROUP BY when there is no index yet: what the engine says over no records. */
export function emptyGroup(query: GroupsQuery): GroupRow {
  const values = emptyAggregations(aggNodes(query));
  return {
    keys: [],
    measures: query.measures.map((m) => ('agg' in m ? (values[m.agg.name] as { value: unknown }).value : 0)),
  };
}

/** A composite key as a row shows it: dates as ISO instants, integers and decimals as exact decimal strings. */
function keyValue(raw: string | number | boolean | null, key: GroupKey): unknown {
  if (raw === null) return null;
  if (key.trunc || key.type === 'datetime') return isoInstant(Number(raw));
  switch (key.type) {
    case 'integer':
      return String(raw);
    case 'decimal':
      return formatScaledDecimal(BigInt(String(raw)));
    case 'number':
      return Number(raw);
    case 'boolean':
      return raw === true || raw === 'true' || raw === 1;
    default:
      return String(raw);
  }
}
