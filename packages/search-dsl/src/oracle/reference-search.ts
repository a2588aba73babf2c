import type { AggResult } from '../ast/aggregations.ts';
import type { ValidatedSearch } from '../validate/validate-search.ts';
import { referenceAggregations } from './aggregate.ts';
import { matches } from './evaluate.ts';
import { compare, compareStrings, fieldValues, lookup } from './oracle-values.ts';

export type ReferenceHit = { readonly key: string; readonly record: Record<string, unknown> };
export type ReferenceOptions = {
  readonly searchable: unknown;
  readonly recordKey: string;
  readonly connectorId?: string;
};

/** The record key as the index stores it: strings as they are, anything else as JSON. */
function keyOf(record: Record<string, unknown>, recordKey: string): string {
  const key = record[recordKey];
  return typeof key === 'string' ? key : JSON.stringify(key ?? null);
}

/** Only `fields`, at their dotted paths, with the upstream's values; whole objects win over their sub-paths. */
function project(record: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of [...fields].sort((a, b) => a.length - b.length)) {
    const value = lookup(record, path);
    if (value === undefined) continue;
    const parts = path.split('.');
    let at: Record<string, unknown> | undefined = out;
    for (const part of parts.slice(0, -1)) {
      if (at[part] === undefined) at[part] = {};
      const next: unknown = at[part];
      at =
        typeof next === 'object' && next !== null && !Array.isArray(next)
          ? (next as Record<string, unknown>)
          : undefined;
      if (!at) break;
    }
    const last = parts[parts.length - 1]!;
    if (at && at[last] === undefined) at[last] = value;
  }
  return out;
}

/**
 * The reference answer to a validated search over in-memory upstream records of one connector (test oracle): the
 * records that match, in the total order of docs/search.md (sort keys with missing values last either way, then the
 * record key), projected to `fields`. Page it with `referencePage`.
 */
export function referenceSearch(
  records: readonly Record<string, unknown>[],
  options: ReferenceOptions,
  search: Pick<ValidatedSearch, 'filter' | 'sort' | 'fields'>,
): ReferenceHit[] {
  const hits = records.filter((r) => matches(search.filter, r));
  const sortValue = (r: Record<string, unknown>, i: number) => fieldValues(r, search.sort[i]!.field, '', true)[0];
  hits.sort((a, b) => {
    for (let i = 0; i < search.sort.length; i++) {
      const x = sortValue(a, i);
      const y = sortValue(b, i);
      if (x === undefined || y === undefined) {
        if (x === y) continue;
        return x === undefined ? 1 : -1;
      }
      const c = compare(x, y);
      if (c !== 0) return search.sort[i]!.direction === 'asc' ? c : -c;
    }
    return compareStrings(keyOf(a, options.recordKey), keyOf(b, options.recordKey));
  });
  return hits.map((r) => ({ key: keyOf(r, options.recordKey), record: project(r, search.fields) }));
}

/** The reference `meta.total` and `meta.aggregations` of a validated search. */
export function referenceSummary(
  records: readonly Record<string, unknown>[],
  search: Pick<ValidatedSearch, 'filter' | 'aggregations'>,
): { total: number; aggregations: Record<string, AggResult> } {
  const hits = records.filter((r) => matches(search.filter, r));
  return { total: hits.length, aggregations: referenceAggregations(hits, search.aggregations) };
}

/** One page of a reference answer: hits after the one with key `afterKey` (or from the start). */
export function referencePage(hits: readonly ReferenceHit[], limit: number, afterKey?: string) {
  const start = afterKey === undefined ? 0 : hits.findIndex((h) => h.key === afterKey) + 1;
  return { hits: hits.slice(start, start + limit), hasMore: start + limit < hits.length };
}
