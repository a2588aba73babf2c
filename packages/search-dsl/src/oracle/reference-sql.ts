import type { FieldMap } from '@conduit/connectors';
import { type AggNode, AvgAgg, CountAgg, DistinctAgg, MaxAgg, MinAgg, SumAgg } from '../ast/aggregations.ts';
import type { Node } from '../ast/nodes.ts';
import { resolveField, rootScope } from '../fields/field-resolution.ts';
import { bucketStart, keyOf, referenceAggregations } from './aggregate.ts';
import { matches } from './evaluate.ts';
import { amountOf, compare, fieldValues, lookup, type OracleValue, scalarType } from './oracle-values.ts';
import { type ReferenceHit, referenceSearch } from './reference-search.ts';

/**
 * The SQL differential test's reference (tests only): the structured form of a generated query, answered over
 * in-memory records with the oracle's own readings of values (oracle-values.ts). It shares nothing with the SQL
 * compiler: not the parser, not the binder, not the composite paging, HAVING or ordering code.
 */
export type MeasureSpec =
  | { readonly fn: 'count_all' }
  | { readonly fn: 'count' | 'count_distinct' | 'sum' | 'avg' | 'min' | 'max'; readonly path: string };
export type KeySpec = { readonly path: string; readonly trunc?: 'hour' | 'day' | 'week' | 'month' };
export type HavingSpec =
  | { readonly measure: number; readonly op: '=' | '<>' | '<' | '<=' | '>' | '>='; readonly value: string }
  | { readonly all: readonly HavingSpec[] }
  | { readonly any: readonly HavingSpec[] };
export type GroupOrder = { readonly key?: number; readonly measure?: number; readonly dir: 'asc' | 'desc' };

export type GroupsSpec = {
  readonly keys: readonly KeySpec[];
  readonly measures: readonly MeasureSpec[];
  readonly having?: HavingSpec;
  readonly order: readonly GroupOrder[];
  readonly limit?: number;
};

type Group = { readonly keys: (OracleValue | number | undefined)[]; readonly records: Record<string, unknown>[] };

const CREATE = { count: CountAgg, count_distinct: DistinctAgg, sum: SumAgg, avg: AvgAgg, min: MinAgg, max: MaxAgg };

/**
 * The rows of a grouping query: records matching `filter` grouped by the keys (the first value of the field, or
 * its DATE_TRUNC bucket; no value is a group of its own), each measured, kept by HAVING, ordered by ORDER BY with
 * missing values last and ties in key order (ascending, missing last), cut to LIMIT. Rows hold `k<i>` and `m<i>`.
 */
export function referenceGroups(
  records: readonly Record<string, unknown>[],
  searchable: FieldMap,
  filter: Node,
  spec: GroupsSpec,
): Record<string, unknown>[] {
  const scope = rootScope(searchable);
  const hits = records.filter((r) => matches(filter, r));
  const keyFields = spec.keys.map((k) => resolveField(scope, k.path)!);
  const groups = new Map<string, Group>();
  if (spec.keys.length === 0) groups.set('[]', { keys: [], records: [] });
  for (const record of hits) {
    const keys = spec.keys.map((k, i) => {
      const value = fieldValues(record, keyFields[i]!, '', true)[0];
      if (value === undefined || !k.trunc) return value;
      return bucketStart((value as { millis: number }).millis, k.trunc);
    });
    const id = JSON.stringify(keys.map((v) => (v === undefined ? null : typeof v === 'number' ? v : keyOf(v))));
    const group = groups.get(id) ?? { keys, records: [] };
    group.records.push(record);
    groups.set(id, group);
  }
  const nodes: (AggNode | undefined)[] = spec.measures.map((m, i) => {
    if (m.fn === 'count_all') return undefined;
    const field = resolveField(scope, m.path)!;
    return CREATE[m.fn].create({ name: `m${i}`, field, type: scalarType(field)! });
  });
  const rows = [...groups.values()].map((g) => {
    const answers = referenceAggregations(
      g.records,
      nodes.filter((n): n is AggNode => n !== undefined),
    );
    const measures = nodes.map((n) => (n ? (answers[n.name] as { value: unknown }).value : g.records.length));
    return { keys: g.keys, measures };
  });
  const kept = spec.having ? rows.filter((r) => holds(spec.having!, r.measures)) : rows;
  const keyOrder = (a: Group['keys'][number], b: Group['keys'][number]) => {
    if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
    return typeof a === 'number' && typeof b === 'number' ? a - b : compare(a as OracleValue, b as OracleValue);
  };
  kept.sort((x, y) => {
    for (const o of spec.order) {
      const sign = o.dir === 'asc' ? 1 : -1;
      if (o.key !== undefined) {
        const a = x.keys[o.key];
        const b = y.keys[o.key];
        if (a === undefined || b === undefined) {
          if (a === b) continue;
          return a === undefined ? 1 : -1;
        }
        const c = keyOrder(a, b);
        if (c !== 0) return sign * c;
      } else {
        const a = x.measures[o.measure!];
        const b = y.measures[o.measure!];
        if (a === null || b === null) {
          if (a === b) continue;
          return a === null ? 1 : -1;
        }
        const c = measureOrder(a, b);
        if (c !== 0) return sign * c;
      }
    }
    for (let i = 0; i < x.keys.length; i++) {
      const c = keyOrder(x.keys[i], y.keys[i]);
      if (c !== 0) return c;
    }
    return 0;
  });
  return kept
    .slice(0, spec.limit ?? kept.length)
    .map((r) =>
      Object.fromEntries([
        ...r.keys.map((k, i) => [
          `k${i}`,
          k === undefined ? null : spec.keys[i]!.trunc ? new Date(k as number).toISOString() : keyOf(k as OracleValue),
        ]),
        ...r.measures.map((m, i) => [`m${i}`, m]),
      ]),
    );
}

/** Measures are counts (numbers) or exact decimal text (amounts, integers): compared as millionths. */
function measureOrder(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string' && /^-?\d+$/.test(a) && /^-?\d+$/.test(b)) {
    return compare(BigInt(a), BigInt(b));
  }
  if (typeof a === 'string' && typeof b === 'string' && !/^\d{4}-/.test(a)) {
    return compare(amountOf(a) ?? { micros: 0n, scale: 0 }, amountOf(b) ?? { micros: 0n, scale: 0 });
  }
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function holds(h: HavingSpec, measures: readonly unknown[]): boolean {
  if ('all' in h) return h.all.every((x) => holds(x, measures));
  if ('any' in h) return h.any.some((x) => holds(x, measures));
  const v = measures[h.measure];
  const equal = v !== null && measureOrder(v, typeof v === 'number' ? Number(h.value) : h.value) === 0;
  if (h.op === '=') return equal;
  if (h.op === '<>') return !equal;
  if (v === null) return false;
  const c = measureOrder(v, typeof v === 'number' ? Number(h.value) : h.value);
  return h.op === '<' ? c < 0 : h.op === '<=' ? c <= 0 : h.op === '>' ? c > 0 : c >= 0;
}

/** The rows of a row query: referenceSearch's records, as rows of the selected paths (null when missing). */
export function referenceRows(
  records: readonly Record<string, unknown>[],
  options: { readonly searchable: FieldMap; readonly recordKey: string },
  search: Parameters<typeof referenceSearch>[2],
  columns: readonly string[] | '*',
  limit: number | undefined,
): Record<string, unknown>[] {
  const hits: ReferenceHit[] = referenceSearch(records, options, search).slice(0, limit);
  if (columns === '*') return hits.map((h) => h.record);
  return hits.map((h) => Object.fromEntries(columns.map((c) => [c, lookup(h.record, c) ?? null])));
}
