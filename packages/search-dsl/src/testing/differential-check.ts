import { expect } from 'vitest';
import type { AggResult } from '../ast/aggregations.ts';
import { referenceSearch, referenceSummary } from '../oracle/reference-search.ts';
import { parseSearchParams } from '../params/parse-search-params.ts';
import { validateSearch } from '../validate/validate-search.ts';
import type { TestIndex } from './opensearch-harness.ts';
import { TEST_SCHEMA } from './test-schema.ts';

/** One differential query (tests only): filter, sort, page size and optional projection. */
export type DiffQuery = {
  filter?: Record<string, unknown>;
  sort: Record<string, string>[];
  pageSize: number;
  fields?: string[];
  /** Aggregations, checked with a `limit: 0` search over the same filter. */
  aggregate?: Record<string, unknown>;
};

let runId = 0;

function paramsOf(q: DiffQuery) {
  const fields = q.fields && q.fields.length > 0 ? ['id', ...q.fields] : undefined;
  return { query: { ...(q.filter ? { filter: q.filter } : {}), sort: q.sort }, ...(fields ? { fields } : {}) };
}

/** Pages through the engine's answer with cursors; no page may be short before the last. */
async function pageThrough(ix: TestIndex, connectorId: string, q: DiffQuery) {
  const keys: string[] = [];
  const data: unknown[] = [];
  let cursor: string | undefined;
  let total: unknown;
  for (let page = 0; page < 200; page++) {
    const page_ = await ix.search({ ...paramsOf(q), limit: q.pageSize, ...(cursor ? { cursor } : {}) }, connectorId);
    total ??= page_.meta.total;
    expect(page_.data.length).toBeLessThanOrEqual(q.pageSize);
    for (const record of page_.data) {
      keys.push(String(record.id));
      data.push(record);
    }
    if (!page_.meta.has_more) return { keys, data, total };
    expect(page_.data.length).toBe(q.pageSize);
    expect(page_.meta.cursor).toBeTypeOf('string');
    cursor = page_.meta.cursor ?? undefined;
  }
  throw new Error('paging did not end');
}

/**
 * Indexes `records` under a fresh connector id of the shared index, then checks that every query, paged through
 * OpenSearch, equals the reference evaluator's answer: same records, same order, same projected values.
 */
export async function checkAgainstReference(ix: TestIndex, records: Record<string, unknown>[], queries: DiffQuery[]) {
  const connectorId = `diff-${process.pid}-${runId++}`;
  await ix.load(records, connectorId);
  for (const q of queries) {
    const search = validateSearch(parseSearchParams(paramsOf(q)), { searchable: TEST_SCHEMA });
    const expected = referenceSearch(records, { searchable: TEST_SCHEMA, recordKey: 'id', connectorId }, search);
    const got = await pageThrough(ix, connectorId, q);
    expect(got.keys).toEqual(expected.map((h) => h.key));
    expect(got.data).toEqual(expected.map((h) => h.record));
    expect(got.total).toEqual({ value: expected.length, exact: true });
    if (q.aggregate) {
      const params = { query: paramsOf(q).query, aggregate: q.aggregate, limit: 0 };
      const summary = referenceSummary(records, validateSearch(parseSearchParams(params), { searchable: TEST_SCHEMA }));
      const answer = await ix.search(params, connectorId);
      expect(answer.data).toEqual([]);
      expect(answer.meta.total).toEqual({ value: summary.total, exact: true });
      expectAggregations(answer.meta.aggregations ?? {}, summary.aggregations, q.aggregate, records);
    }
  }
}

/**
 * Buckets, minima, maxima and decimal sums must be equal; sums and averages of doubles may differ in the last bits
 * (the engine adds in another order); integer sums may differ by the doubles' rounding beyond 2^53 (README), and so
 * may averages: n values of magnitude up to M, added as doubles in any order, are off by at most about n·M·2^-53
 * in the sum, so by M·2^-53 per value in the average (e.g. 2^53 + 1, 7 and -(2^53 + 1) average 7/3 exactly, but
 * the engine's doubles may give 1/3 or 5/3).
 */
export function expectAggregations(
  got: Record<string, AggResult>,
  expected: Record<string, AggResult>,
  request: Record<string, unknown>,
  records: readonly Record<string, unknown>[],
) {
  expect(Object.keys(got).sort()).toEqual(Object.keys(expected).sort());
  for (const [name, want] of Object.entries(expected)) {
    const have = got[name];
    const kind = Object.keys(request[name] as object).find((k) => k !== 'size' && k !== 'interval');
    const field = (request[name] as Record<string, string>)[kind!];
    const label = `${name}: ${kind} ${field}`;
    if (Array.isArray(want) || !(kind === 'sum' || kind === 'avg')) {
      expect(have, label).toEqual(want);
      continue;
    }
    const w = (want as { value: unknown }).value;
    const h = (have as { value: unknown }).value;
    if (field === 'price' || w === null) expect(h, label).toEqual(w);
    else if (field === 'created_at')
      expect(Math.abs(Date.parse(String(h)) - Date.parse(String(w))), label).toBeLessThanOrEqual(1);
    else if (kind === 'sum' && field === 'count')
      expect(Math.abs(Number(h) - Number(w)), label).toBeLessThanOrEqual(16);
    else {
      expect(typeof h, label).toBe('number');
      const values = records.map((r) => Number(r[field!])).filter(Number.isFinite);
      const magnitude = Math.max(0, ...values.map(Math.abs));
      const roundingOfDoubles = values.length * magnitude * 2 ** -52;
      expect(Math.abs(Number(h) - Number(w)), label).toBeLessThanOrEqual(
        Math.max(1e-9 * Math.max(1, Math.abs(Number(w))), roundingOfDoubles),
      );
    }
  }
}
