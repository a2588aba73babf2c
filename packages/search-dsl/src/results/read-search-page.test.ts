import { describe, expect, it } from 'vitest';
import { planSearch } from '../plan-search.ts';
import { TEST_SCHEMA } from '../testing/test-schema.ts';
import { projectSource, readSearchPage } from './read-search-page.ts';

const OPTIONS = { searchable: TEST_SCHEMA, recordKey: 'id', connectorId: 'c1', entity: 'things', cursorKey: 'k' };
const hit = (record: Record<string, unknown>, sort: unknown[]) => ({
  _source: { _key: record.id, _record: record },
  sort,
});

describe('readSearchPage', () => {
  it('returns limit records, has_more and a cursor when one more hit came back', () => {
    const plan = planSearch({ query: {}, limit: 2 }, OPTIONS);
    const page = readSearchPage(
      { took: 7, hits: { hits: [hit({ id: 'a' }, ['a']), hit({ id: 'b' }, ['b']), hit({ id: 'c' }, ['c'])] } },
      plan.page,
    );
    expect(page.data).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(page.meta.has_more).toBe(true);
    expect(page.meta.took_ms).toBe(7);
    const next = planSearch({ query: {}, limit: 2, cursor: page.meta.cursor }, OPTIONS);
    expect(next.body.search_after).toEqual(['b']);
  });

  it('ends with has_more false and a null cursor', () => {
    const plan = planSearch({ query: {}, limit: 2 }, OPTIONS);
    expect(readSearchPage({ hits: { hits: [hit({ id: 'a' }, ['a'])] } }, plan.page).meta).toEqual({
      has_more: false,
      cursor: null,
      took_ms: null,
      total: { value: 1, exact: true },
    });
  });

  it('reads meta.total from the engine, exact up to its limit', () => {
    const plan = planSearch({ query: {}, limit: 2 }, OPTIONS);
    expect(plan.body.track_total_hits).toBe(10_000);
    const page = (relation: string) =>
      readSearchPage({ hits: { total: { value: 10_000, relation }, hits: [] } }, plan.page).meta.total;
    expect(page('eq')).toEqual({ value: 10_000, exact: true });
    expect(page('gte')).toEqual({ value: 10_000, exact: false });
  });

  it('answers too many histogram buckets with a 400 at the histogram', () => {
    const plan = planSearch({ query: {}, aggregate: { h: { histogram: 'created_at', interval: 'hour' } } }, OPTIONS);
    const error = {
      error: { type: 'search_phase_execution_exception', caused_by: { type: 'too_many_buckets_exception' } },
    };
    expect(() => readSearchPage(error, plan.page)).toThrow(
      expect.objectContaining({ code: 'invalid_filter', errors: [expect.objectContaining({ path: '/aggregate/h' })] }),
    );
  });

  it('takes int64 sort values from the record, exactly', () => {
    const plan = planSearch({ query: { sort: [{ count: 'asc' }] }, limit: 1, fields: ['id'] }, OPTIONS);
    const hits = [hit({ id: 'a', count: '9007199254740993' }, [9007199254740992, 'a']), hit({ id: 'b' }, [1, 'b'])];
    const cursor = readSearchPage({ hits: { hits } }, plan.page).meta.cursor;
    const next = planSearch({ query: { sort: [{ count: 'asc' }] }, limit: 1, fields: ['id'], cursor }, OPTIONS);
    expect(next.body.search_after).toEqual(['9007199254740993', 'a']);
  });
});

describe('projectSource', () => {
  const source = { _key: 'a', _record: { id: 'a', address: { city: 'Oslo', zip: '1' }, 'dotted.key': 1, meta: null } };

  it('keeps only the requested paths, nested', () => {
    expect(projectSource(source, ['address.city', 'id'])).toEqual({ id: 'a', address: { city: 'Oslo' } });
  });

  it('lets a whole object win over one of its paths', () => {
    expect(projectSource(source, ['address.city', 'address'])).toEqual({ address: { city: 'Oslo', zip: '1' } });
  });

  it('finds a key that itself contains dots, and a nested path beside it', () => {
    const dotted = { _key: 'a', _record: { 'dotted.key': 1, dotted: { other: 2 }, 'a.b': { c: 3 } } };
    expect(projectSource(dotted, ['dotted.key', 'dotted.other', 'a.b.c'])).toEqual({
      dotted: { key: 1, other: 2 },
      a: { b: { c: 3 } },
    });
  });

  it('keeps a literal dotted key flat under its name, beside nested paths', () => {
    const event = { _key: 'e', _record: { 'event.type': 'error', 'address.city': 'Oslo' } };
    expect(projectSource(event, ['event.type', 'address.city'], new Set(['event.type']))).toEqual({
      'event.type': 'error',
      address: { city: 'Oslo' },
    });
  });

  it('keeps nulls and leaves out missing paths', () => {
    expect(projectSource(source, ['meta', 'name', 'meta.x'])).toEqual({ meta: null });
  });
});
