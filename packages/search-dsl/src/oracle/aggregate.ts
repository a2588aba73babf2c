import type { AggBucket, AggNode, AggResult, AggVisitor } from '../ast/aggregations.ts';
import { visitAgg } from '../ast/aggregations.ts';
import { type Amount, compare, fieldValues, type Instant, type OracleValue } from './oracle-values.ts';

/**
 * Reference answers of `params.aggregate` over the matching records (tests only), computed with exact arithmetic
 * (big integers for integers and amounts) in the output forms docs/search.md promises.
 */
export function referenceAggregations(
  records: readonly Record<string, unknown>[],
  nodes: readonly AggNode[],
): Record<string, AggResult> {
  return Object.fromEntries(nodes.map((node) => [node.name, visitAgg(node, aggregator(records))]));
}

const isInstant = (v: OracleValue): v is Instant => typeof v === 'object' && 'millis' in v;
const isAmount = (v: OracleValue): v is Amount => typeof v === 'object' && 'micros' in v;
const iso = (millis: number) => new Date(millis).toISOString();

/** Millionths as the shortest decimal text: 8387120000 → "8387.12". */
function amountText(micros: bigint, minScale = 0): string {
  const sign = micros < 0n ? '-' : '';
  const digits = (micros < 0n ? -micros : micros).toString().padStart(7, '0');
  const whole = digits.slice(0, -6);
  const significant = digits.slice(-6).replace(/0+$/, '');
  const fraction = digits.slice(-6).slice(0, Math.max(minScale, significant.length));
  return sign + whole + (fraction ? `.${fraction}` : '');
}

/** The key a count_by bucket shows for a value (also a SQL group key's form). */
export function keyOf(v: OracleValue): AggBucket['key'] {
  if (typeof v === 'bigint') return v.toString();
  if (isAmount(v)) return amountText(v.micros);
  if (isInstant(v)) return iso(v.millis);
  return v as string | number | boolean;
}

/** Start of the UTC calendar bucket holding `millis`. Weeks start on Monday. */
export function bucketStart(millis: number, interval: string): number {
  const d = new Date(millis);
  const [y, m, day, h] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours()];
  const utc = (...parts: [number, number, number, number?]) => {
    const x = new Date(0);
    x.setUTCFullYear(parts[0], parts[1], parts[2]);
    x.setUTCHours(parts[3] ?? 0, 0, 0, 0);
    return x.getTime();
  };
  if (interval === 'hour') return utc(y, m, day, h);
  if (interval === 'day') return utc(y, m, day);
  if (interval === 'week') return utc(y, m, day - ((d.getUTCDay() + 6) % 7));
  return utc(y, m, 1);
}

function nextBucket(start: number, interval: string): number {
  if (interval === 'hour') return start + 3_600_000;
  if (interval === 'day') return start + 86_400_000;
  if (interval === 'week') return start + 7 * 86_400_000;
  const d = new Date(start);
  const x = new Date(0);
  x.setUTCFullYear(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return x.getTime();
}

function aggregator(records: readonly Record<string, unknown>[]): AggVisitor<AggResult> {
  /** One value per record (metrics and histograms take single-valued fields). */
  const single = (node: AggNode): OracleValue[] =>
    records.flatMap((r) => fieldValues(r, node.field, '', node.kind === 'CountByAgg').slice(0, 1));
  const sumOf = (node: AggNode, values: OracleValue[]): bigint | number => {
    if (node.type === 'decimal') return values.reduce<bigint>((s, v) => s + (v as Amount).micros, 0n);
    if (node.type === 'integer') return values.reduce<bigint>((s, v) => s + (v as bigint), 0n);
    return values.reduce<number>((s, v) => s + (v as number), 0);
  };
  const extreme = (node: AggNode, sign: 1 | -1) => {
    const values = single(node);
    if (values.length === 0) return { value: null };
    const best = values.reduce((a, b) => (compare(b, a) * sign < 0 ? b : a));
    return { value: typeof best === 'number' ? best : (keyOf(best) as string) };
  };
  return {
    CountByAgg: (node) => {
      const counts = new Map<string, { value: OracleValue; count: number }>();
      for (const r of records) {
        const seen = new Set<string>();
        for (const v of fieldValues(r, node.field, '', true)) {
          const id = String(keyOf(v));
          if (seen.has(id)) continue;
          seen.add(id);
          const entry = counts.get(id) ?? { value: v, count: 0 };
          entry.count++;
          counts.set(id, entry);
        }
      }
      return [...counts.values()]
        .sort((a, b) => b.count - a.count || compare(a.value, b.value))
        .slice(0, node.size)
        .map(({ value, count }) => ({ key: keyOf(value), count }));
    },
    SumAgg: (node) => {
      const values = single(node);
      const total = sumOf(node, values);
      if (node.type === 'decimal') {
        // As an amount of money: the sum keeps the largest scale its inputs were written with.
        const scale = values.reduce<number>((s, v) => Math.max(s, (v as Amount).scale), 0);
        return { value: amountText(total as bigint, scale) };
      }
      return { value: typeof total === 'bigint' ? total.toString() : total };
    },
    AvgAgg: (node) => {
      const values = single(node);
      if (values.length === 0) return { value: null };
      if (node.type === 'datetime') {
        const sum = values.reduce<number>((s, v) => s + (v as Instant).millis, 0);
        return { value: iso(Math.round(sum / values.length)) };
      }
      const total = sumOf(node, values);
      if (node.type === 'decimal') {
        // Half away from zero at 6 decimals.
        const n = BigInt(values.length);
        const t = total as bigint;
        const magnitude = ((t < 0n ? -t : t) * 2n + n) / (2n * n);
        return { value: amountText(t < 0n ? -magnitude : magnitude) };
      }
      return { value: Number(total) / values.length };
    },
    MinAgg: (node) => extreme(node, 1),
    MaxAgg: (node) => extreme(node, -1),
    CountAgg: (node) => ({ value: single(node).length }),
    DistinctAgg: (node) => ({ value: new Set(single(node).map((v) => String(keyOf(v)))).size }),
    HistogramAgg: (node) => {
      const starts = single(node).map((v) => bucketStart((v as Instant).millis, node.interval));
      if (starts.length === 0) return [];
      const counts = new Map<number, number>();
      for (const s of starts) counts.set(s, (counts.get(s) ?? 0) + 1);
      const out: AggBucket[] = [];
      const last = Math.max(...starts);
      for (let at = Math.min(...starts); at <= last; at = nextBucket(at, node.interval)) {
        out.push({ key: iso(at), count: counts.get(at) ?? 0 });
      }
      return out;
    },
  };
}
