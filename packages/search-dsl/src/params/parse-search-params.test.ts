import { describe, expect, it } from 'vitest';
import { SearchQueryError } from '../errors.ts';
import { SEARCH_LIMITS } from '../limits.ts';
import { parseSearchParams } from './parse-search-params.ts';

function problems(input: unknown, code = 'invalid_filter') {
  try {
    parseSearchParams(input);
  } catch (e) {
    expect(e).toBeInstanceOf(SearchQueryError);
    const err = e as SearchQueryError;
    expect(err.code).toBe(code);
    return err.errors;
  }
  throw new Error('expected a SearchQueryError');
}

const nest = (levels: number): Record<string, unknown> => {
  let filter: Record<string, unknown> = { eq: { a: 1 } };
  for (let i = 1; i < levels; i++) filter = { not: filter };
  return filter;
};

describe('parseSearchParams', () => {
  it('names limit, cursor, fields and unknown params invalid_params, the query invalid_filter', () => {
    expect(problems({ query: {}, limit: -1, extra: 1 }, 'invalid_params').map((e) => e.path)).toEqual([
      '/limit',
      '/extra',
    ]);
    expect(problems({ query: { filter: { eq: 5 } }, limit: -1 }).map((e) => e.path)).toEqual([
      '/query/filter/eq',
      '/limit',
    ]);
  });

  it('applies the default limit', () => {
    expect(parseSearchParams({ query: {} })).toEqual({ query: {}, limit: SEARCH_LIMITS.defaultLimit });
  });

  it('accepts every operator', () => {
    const filter = {
      eq: { a: 'x', b: null },
      neq: { a: 1 },
      gt: { a: 1 },
      gte: { a: 'b' },
      lt: { a: true },
      lte: { a: 2 },
      in: { a: [1, 'x'] },
      like: { a: 'x%' },
      fuzzy: { a: 'x' },
      keyword: { a: 'x' },
      contains: { a: 1 },
      any: { lines: { eq: { sku: 'A' } } },
      not: { eq: { a: 1 } },
      and: [{ eq: { a: 1 } }],
      or: [{ eq: { a: 1 } }],
    };
    expect(
      parseSearchParams({ query: { filter, sort: [{ a: 'desc' }] }, limit: 5, cursor: 'c', fields: ['a'] }),
    ).toEqual({ query: { filter, sort: [{ a: 'desc' }] }, limit: 5, cursor: 'c', fields: ['a'] });
  });

  it('rejects an unknown operator at its JSON path', () => {
    expect(problems({ query: { filter: { and: [{ eq: { a: 1 } }, { equals: { a: 1 } }] } } })).toEqual([
      { path: '/query/filter/and/1/equals', message: expect.stringContaining("unknown operator 'equals'") },
    ]);
  });

  it('lists every structural problem at once', () => {
    const errors = problems({
      query: { filter: { eq: { a: { nested: 1 } }, in: { b: 'x' }, and: [], not: [] }, sort: [{ a: 'up' }] },
      limit: -1,
      extra: true,
    });
    expect(errors.map((e) => e.path).sort()).toEqual([
      '/extra',
      '/limit',
      '/query/filter/and',
      '/query/filter/eq/a',
      '/query/filter/in/b',
      '/query/filter/not',
      '/query/sort/0/a',
    ]);
  });

  it('requires query', () => {
    expect(problems({ limit: 10 })).toEqual([{ path: '/query', message: 'is required' }]);
    expect(problems('nope', 'invalid_params')).toEqual([{ path: '', message: expect.any(String) }]);
  });

  it('says which type a value of the wrong type should have (not "is required")', () => {
    expect(problems({ query: 5 })).toEqual([{ path: '/query', message: 'expected an object, got a number' }]);
    expect(problems({ query: {}, cursor: 5 }, 'invalid_params')).toEqual([
      { path: '/cursor', message: 'expected a string, got a number' },
    ]);
    expect(problems({ query: {}, fields: 'id' }, 'invalid_params')).toEqual([
      { path: '/fields', message: 'expected an array, got a string' },
    ]);
  });

  it('bounds limit to 1-10000 integers', () => {
    expect(problems({ query: {}, limit: 10_001 }, 'invalid_params')[0]!.path).toBe('/limit');
    expect(problems({ query: {}, limit: 1.5 }, 'invalid_params')[0]!.path).toBe('/limit');
    expect(parseSearchParams({ query: {}, limit: 0 }).limit).toBe(0);
    expect(parseSearchParams({ query: {}, limit: 10_000 }).limit).toBe(10_000);
  });

  it('allows at most 1024 values in in', () => {
    const values = Array.from({ length: 1025 }, (_, i) => i);
    expect(problems({ query: { filter: { in: { a: values } } } })).toEqual([
      { path: '/query/filter/in/a', message: 'in takes at most 1024 values' },
    ]);
    expect(() => parseSearchParams({ query: { filter: { in: { a: values.slice(1) } } } })).not.toThrow();
  });

  it('allows 16 levels of nesting, not 17', () => {
    expect(() => parseSearchParams({ query: { filter: nest(16) } })).not.toThrow();
    const errors = problems({ query: { filter: nest(17) } });
    expect(errors).toEqual([
      { path: `/query/filter${'/not'.repeat(16)}`, message: expect.stringContaining('16 levels') },
    ]);
  });

  it('counts depth through and, or and any', () => {
    const errors = problems({ query: { filter: { any: { lines: nest(16) } } } });
    expect(errors[0]!.path).toBe(`/query/filter/any/lines${'/not'.repeat(15)}`);
  });

  it('rejects a query over 64 KiB before parsing it', () => {
    const errors = problems({ query: { filter: { eq: { a: 'x'.repeat(SEARCH_LIMITS.maxQueryBytes) } } } });
    expect(errors).toEqual([{ path: '/query', message: expect.stringContaining('at most 65536') }]);
  });

  it('rejects a sort entry naming two fields', () => {
    expect(problems({ query: { sort: [{ a: 'asc', b: 'desc' }] } })).toEqual([
      { path: '/query/sort/0', message: 'each sort entry names exactly one field' },
    ]);
  });

  it('escapes field names in JSON pointers', () => {
    expect(problems({ query: { filter: { eq: { 'a/b~c': [1] } } } })[0]!.path).toBe('/query/filter/eq/a~1b~0c');
  });
});
