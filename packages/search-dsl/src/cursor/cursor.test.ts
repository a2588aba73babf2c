import { describe, expect, it } from 'vitest';
import { SearchQueryError } from '../errors.ts';
import { planSearch } from '../plan-search.ts';
import { readSearchPage } from '../results/read-search-page.ts';
import { TEST_SCHEMA } from '../testing/test-schema.ts';
import { decodeCursor, encodeCursor, hashQuery } from './cursor.ts';

const BINDING = { connectorId: 'c1', entity: 'things', queryHash: hashQuery({ filter: null }) };
const OPTIONS = { searchable: TEST_SCHEMA, recordKey: 'id', connectorId: 'c1', entity: 'things', cursorKey: 'secret' };

function cursorError(run: () => unknown): SearchQueryError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(SearchQueryError);
    const err = e as SearchQueryError;
    expect(err.code).toBe('invalid_cursor');
    expect(err.errors[0]!.path).toBe('/cursor');
    return err;
  }
  throw new Error('expected invalid_cursor');
}

/** A real cursor from a first page of `params`. */
function firstCursor(params: Record<string, unknown>, options = OPTIONS): string {
  const plan = planSearch({ ...params, limit: 1 }, options);
  const hit = (key: string) => ({ _source: { _key: key, _record: { id: key } }, sort: [key] });
  const page = readSearchPage({ took: 3, hits: { hits: [hit('a'), hit('b')] } }, plan.page);
  expect(page.meta).toMatchObject({ has_more: true, took_ms: 3 });
  return page.meta.cursor!;
}

describe('cursor', () => {
  it('round-trips search_after values', () => {
    const cursor = encodeCursor(['x', 2 ** 63, null, true], BINDING, 'secret');
    expect(decodeCursor(cursor, BINDING, 'secret', 4)).toEqual(['x', 2 ** 63, null, true]);
  });

  it('carries over to the next page of the same query, whatever the page size', () => {
    const query = { query: { filter: { eq: { name: 'a' } } } };
    const cursor = firstCursor(query);
    expect(planSearch({ ...query, cursor, limit: 50 }, OPTIONS).body.search_after).toEqual(['a']);
  });

  it('is independent of key order in the query', () => {
    const cursor = firstCursor({ query: { filter: { eq: { name: 'a', id: 'b' } } } });
    expect(() => planSearch({ query: { filter: { eq: { id: 'b', name: 'a' } } }, cursor }, OPTIONS)).not.toThrow();
  });

  it('rejects a tampered payload', () => {
    const cursor = firstCursor({ query: {} });
    const [body, mac] = cursor.split('.');
    const forged = Buffer.from(Buffer.from(body!, 'base64url').toString().replace('"a"', '"z"')).toString('base64url');
    expect(cursorError(() => planSearch({ query: {}, cursor: `${forged}.${mac}` }, OPTIONS)).errors[0]!.message).toBe(
      'cursor signature mismatch',
    );
  });

  it('rejects a cursor signed with another key', () => {
    const cursor = firstCursor({ query: {} }, { ...OPTIONS, cursorKey: 'other' });
    cursorError(() => planSearch({ query: {}, cursor }, OPTIONS));
  });

  it('rejects a cursor of another query, sort, fields, connector or entity', () => {
    const cursor = firstCursor({ query: { filter: { eq: { name: 'a' } } } });
    const msg = (params: Record<string, unknown>, options = OPTIONS) =>
      cursorError(() => planSearch({ ...params, cursor }, options)).errors[0]!.message;
    expect(msg({ query: { filter: { eq: { name: 'b' } } } })).toBe(
      'cursor belongs to a different query, sort or fields',
    );
    expect(msg({ query: { filter: { eq: { name: 'a' } }, sort: [{ name: 'asc' }] } })).toContain('different query');
    expect(msg({ query: { filter: { eq: { name: 'a' } } }, fields: ['id'] })).toContain('different query');
    expect(msg({ query: { filter: { eq: { name: 'a' } } } }, { ...OPTIONS, connectorId: 'c2' })).toBe(
      'cursor belongs to another connector or entity',
    );
    expect(msg({ query: { filter: { eq: { name: 'a' } } } }, { ...OPTIONS, entity: 'other' })).toContain(
      'another connector',
    );
  });

  it('rejects garbage', () => {
    for (const cursor of ['x', 'a.b.c', '.', `${Buffer.from('{}').toString('base64url')}.`]) {
      cursorError(() => planSearch({ query: {}, cursor }, OPTIONS));
    }
  });
});
