import { describe, expect, it } from 'vitest';
import { parseSearchParams } from '../params/parse-search-params.ts';
import { TEST_SCHEMA } from '../testing/test-schema.ts';
import { validateSearch } from '../validate/validate-search.ts';
import { referenceSummary } from './reference-search.ts';

const summary = (records: Record<string, unknown>[], aggregate: unknown, filter?: unknown) =>
  referenceSummary(
    records,
    validateSearch(parseSearchParams({ query: filter ? { filter } : {}, aggregate, limit: 0 }), {
      searchable: TEST_SCHEMA,
    }),
  );

describe('reference aggregations', () => {
  it('buckets weeks from Monday and months across a year end, empty ones included', () => {
    const records = [
      { id: 'a', created_at: '2024-12-29T23:59:59Z' }, // a Sunday: the week of Monday 23 December
      { id: 'b', created_at: '2024-12-30T00:00:00+01:00' }, // still Sunday 29 in UTC
      { id: 'c', created_at: '2025-02-03' },
    ];
    const { aggregations } = summary(records, {
      w: { histogram: 'created_at', interval: 'week' },
      m: { histogram: 'created_at', interval: 'month' },
    });
    expect((aggregations.w as readonly unknown[])[0]).toEqual({ key: '2024-12-23T00:00:00.000Z', count: 2 });
    expect((aggregations.w as unknown[]).length).toBe(7);
    expect(aggregations.m).toEqual([
      { key: '2024-12-01T00:00:00.000Z', count: 2 },
      { key: '2025-01-01T00:00:00.000Z', count: 0 },
      { key: '2025-02-01T00:00:00.000Z', count: 1 },
    ]);
  });

  it('adds amounts exactly and rounds their average half away from zero', () => {
    const records = [
      { id: 'a', price: '0.1' },
      { id: 'b', price: 0.2 },
      { id: 'c', price: '-0.000001' },
      { id: 'd', price: 'n/a' },
    ];
    expect(summary(records, { s: { sum: 'price' }, a: { avg: 'price' } }).aggregations).toEqual({
      s: { value: '0.299999' },
      a: { value: '0.1' },
    });
  });

  it('counts each record once per distinct value, most first then by key, over the matching records only', () => {
    const records = [
      { id: 'a', tags: ['x', 'x', 'y'], count: 1 },
      { id: 'b', tags: ['y'], count: 1 },
      { id: 'c', tags: ['z'], count: 2 },
    ];
    expect(summary(records, { t: { count_by: 'tags' } }, { eq: { count: 1 } })).toEqual({
      total: 2,
      aggregations: {
        t: [
          { key: 'y', count: 2 },
          { key: 'x', count: 1 },
        ],
      },
    });
  });

  it('answers over no values: sums are zero, the rest null or empty', () => {
    expect(
      summary([], { s: { sum: 'count' }, n: { sum: 'amount' }, m: { max: 'created_at' }, c: { count_by: 'name' } }),
    ).toEqual({ total: 0, aggregations: { s: { value: '0' }, n: { value: 0 }, m: { value: null }, c: [] } });
  });
});
