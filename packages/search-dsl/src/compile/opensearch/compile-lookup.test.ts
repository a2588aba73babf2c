import { describe, expect, it } from 'vitest';
import { indexDocumentId } from '../../mapping/index-document.ts';
import { planSearch } from '../../plan-search.ts';
import { TEST_SCHEMA } from '../../testing/test-schema.ts';

const OPTIONS = { searchable: TEST_SCHEMA, recordKey: 'id', connectorId: 'c1', entity: 'things', cursorKey: 'k' };
const lookupOf = (params: Record<string, unknown>) => planSearch(params, OPTIONS).lookup;
const ids = (...keys: string[]) => ({
  ids: keys.map((key) => indexDocumentId('c1', key)),
  includes: expect.arrayContaining(['_key', '_deleted']),
});

describe('compileLookup', () => {
  it('looks up the document of an eq on the record key', () => {
    expect(lookupOf({ query: { filter: { eq: { id: 'a' } } }, limit: 10 })).toEqual(ids('a'));
  });

  it('looks up each key of an in once, in the order of their UTF-8 bytes, as the engine sorts `_key`', () => {
    // U+FF5E sorts before U+1F600 in UTF-8 bytes, after it in UTF-16 code units (JavaScript's < on strings).
    const keys = ['b', '\u{1F600}', 'a', '\uFF5E', 'b'];
    expect(lookupOf({ query: { filter: { in: { id: keys } } }, limit: 10 })).toEqual(
      ids('a', 'b', '\uFF5E', '\u{1F600}'),
    );
  });

  it('keeps an and of one condition a lookup (the logic is flattened first)', () => {
    expect(lookupOf({ query: { filter: { and: [{ eq: { id: 'a' } }] } }, limit: 1 })).toEqual(ids('a'));
  });

  it('does not look up keys the search cannot find: longer than an exact match indexes', () => {
    const long = 'x'.repeat(8192);
    expect(lookupOf({ query: { filter: { in: { id: ['a', long] } } }, limit: 10 })).toEqual(ids('a'));
    expect(lookupOf({ query: { filter: { eq: { id: long } } }, limit: 10 })).toBeUndefined();
  });

  it.each([
    ['another field', { query: { filter: { eq: { name: 'a' } } }, limit: 10 }],
    ['another condition beside the key', { query: { filter: { eq: { id: 'a' }, gte: { count: 1 } } }, limit: 10 }],
    ['an or of keys', { query: { filter: { or: [{ eq: { id: 'a' } }, { eq: { id: 'b' } }] } }, limit: 10 }],
    ['a neq', { query: { filter: { neq: { id: 'a' } } }, limit: 10 }],
    ['an eq null', { query: { filter: { eq: { id: null } } }, limit: 10 }],
    ['a sort', { query: { filter: { eq: { id: 'a' } }, sort: [{ name: 'asc' }] }, limit: 10 }],
    ['aggregations', { query: { filter: { eq: { id: 'a' } } }, aggregate: { n: { count_by: 'name' } }, limit: 10 }],
    ['limit 0', { query: { filter: { eq: { id: 'a' } } }, limit: 0 }],
    ['more keys than the page holds', { query: { filter: { in: { id: ['a', 'b', 'c'] } } }, limit: 2 }],
    ['no filter', { query: {}, limit: 10 }],
  ])('is not a lookup with %s', (_, params) => {
    expect(lookupOf(params)).toBeUndefined();
  });

  it('is not a lookup when the record key is not a string field', () => {
    const plan = planSearch({ query: { filter: { eq: { count: 5 } } }, limit: 10 }, { ...OPTIONS, recordKey: 'count' });
    expect(plan.lookup).toBeUndefined();
  });
});
