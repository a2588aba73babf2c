import { describe, expect, it } from 'vitest';
import { parseSearchParams } from '../../params/parse-search-params.ts';
import { TEST_SCHEMA } from '../../testing/test-schema.ts';
import { validateSearch } from '../../validate/validate-search.ts';
import { compileFilter } from './compile-filter.ts';
import { compileSearch } from './compile-search.ts';

const OPTIONS = { connectorId: 'c1', entity: 'things', cursorKey: 'k' };
const search = (input: unknown) => validateSearch(parseSearchParams(input), { searchable: TEST_SCHEMA });
const clause = (filter: unknown) => compileFilter(search({ query: { filter } }).filter);

describe('compileSearch (golden)', () => {
  it('compiles the default search: connector filter without tombstones, key order, limit + 1, the whole record', () => {
    expect(compileSearch(search({ query: {}, limit: 10 }), OPTIONS).body).toEqual({
      size: 11,
      query: {
        bool: { filter: [{ term: { _connector_id: 'c1' } }], must_not: [{ term: { _deleted: true } }] },
      },
      sort: [{ _key: { order: 'asc' } }],
      _source: { includes: ['_key', '_record'] },
      track_total_hits: 10_000,
    });
  });

  it('asks for the whole record when the fields name every searchable field, in any order', () => {
    const every = Object.keys(TEST_SCHEMA).reverse();
    expect(compileSearch(search({ query: {}, fields: every }), OPTIONS).body._source.includes).toEqual([
      '_key',
      '_record',
    ]);
    const allButOne = every.slice(1);
    expect(compileSearch(search({ query: {}, fields: allButOne }), OPTIONS).body._source.includes).toEqual([
      '_key',
      ...allButOne.map((f) => `_record.${f}`),
    ]);
  });

  it('compiles aggregations under generated names; limit 0 fetches no hits', () => {
    const { body, page } = compileSearch(
      search({
        query: {},
        limit: 0,
        aggregate: {
          n: { count_by: 'name', size: 5 },
          c: { count_by: 'count' },
          revenue: { sum: 'price' },
          top: { max: 'price' },
          low: { min: 'amount' },
          daily: { histogram: 'created_at', interval: 'day' },
        },
      }),
      OPTIONS,
    );
    expect(body.size).toBe(0);
    expect(page.aggregations.map((a) => a.name)).toEqual(['n', 'c', 'revenue', 'top', 'low', 'daily']);
    expect(body.aggs).toEqual({
      a0: { terms: { field: 'name', size: 5, order: [{ _count: 'desc' }, { _key: 'asc' }] } },
      a1: { terms: { field: 'count', size: 10, order: [{ _count: 'desc' }, { _key: 'asc' }], format: '0' } },
      a2: {
        filter: { exists: { field: 'price.scaled' } },
        aggs: {
          units: { sum: { field: 'price.units' } },
          fraction: { sum: { field: 'price.fraction' } },
          scale: { max: { field: 'price.scale' } },
        },
      },
      a3: {
        filter: { exists: { field: 'price.scaled' } },
        aggs: {
          top: {
            top_hits: {
              size: 1,
              sort: [{ 'price.scaled': { order: 'desc' } }],
              _source: { includes: ['_record.price'] },
            },
          },
        },
      },
      a4: { min: { field: 'amount' } },
      a5: { date_histogram: { field: 'created_at', calendar_interval: 'day', time_zone: 'UTC', min_doc_count: 0 } },
    });
  });

  it('compiles sorts with missing values last and the record-key tie-breaker', () => {
    const { body } = compileSearch(
      search({ query: { sort: [{ created_at: 'desc' }, { name: 'asc' }, { count: 'desc' }] }, fields: ['id'] }),
      OPTIONS,
    );
    expect(body.sort).toEqual([
      { created_at: { order: 'desc', missing: -8_640_000_000_000_000 } },
      { name: { order: 'asc', missing: '_last' } },
      { count: { order: 'desc', missing: '_last' } },
      { _key: { order: 'asc' } },
    ]);
    // int64 sort keys are also fetched from the record so cursors keep them exact.
    expect(body._source.includes).toEqual(['_key', '_record.id', '_record.count']);
  });

  it('compiles a compound filter', () => {
    const { body } = compileSearch(
      search({
        query: {
          filter: {
            or: [{ eq: { name: 'a' } }, { not: { in: { count: [1, '2'] } } }],
            any: { lines: { eq: { sku: 'A' }, gte: { at: '2024-01-01' } } },
          },
        },
      }),
      OPTIONS,
    );
    expect(body.query).toEqual({
      bool: {
        filter: [
          { term: { _connector_id: 'c1' } },
          {
            bool: {
              filter: [
                // Operators compile in schema order (any before or).
                {
                  nested: {
                    path: 'lines',
                    query: {
                      bool: {
                        filter: [
                          { term: { 'lines.sku': 'A' } },
                          { range: { 'lines.at': { gte: '2024-01-01T00:00:00.000Z' } } },
                        ],
                      },
                    },
                  },
                },
                {
                  bool: {
                    should: [{ term: { name: 'a' } }, { bool: { must_not: [{ terms: { count: ['1', '2'] } }] } }],
                    minimum_should_match: 1,
                  },
                },
              ],
            },
          },
        ],
        must_not: [{ term: { _deleted: true } }],
      },
    });
  });
});

describe('compileFilter: every operator', () => {
  it.each([
    ['eq', { eq: { name: 'A' } }, { term: { name: 'A' } }],
    ['eq null', { eq: { name: null } }, { bool: { must_not: [{ exists: { field: 'name' } }] } }],
    ['neq', { neq: { amount: 1 } }, { bool: { must_not: [{ term: { amount: 1 } }] } }],
    ['neq null', { neq: { amount: null } }, { exists: { field: 'amount' } }],
    ['gt', { gt: { amount: 1 } }, { range: { amount: { gt: 1 } } }],
    [
      'gte date',
      { gte: { created_at: '2024-02-10T00:01:56+0000' } },
      { range: { created_at: { gte: '2024-02-10T00:01:56.000Z' } } },
    ],
    ['lt', { lt: { name: 'm' } }, { range: { name: { lt: 'm' } } }],
    ['lte int64', { lte: { count: '9007199254740993' } }, { range: { count: { lte: '9007199254740993' } } }],
    ['in', { in: { active: [true] } }, { terms: { active: [true] } }],
    ['like', { like: { name: 'Ab_%' } }, { regexp: { 'name.wc': { value: 'ab..*', flags: 'NONE' } } }],
    ['like substring', { like: { name: 'a.b' } }, { regexp: { 'name.wc': { value: '.*a\\.b.*', flags: 'NONE' } } }],
    [
      'like on a flat path',
      { like: { 'meta.c': 'R%' } },
      { wildcard: { 'meta.c': { value: 'R*', case_insensitive: true } } },
    ],
    [
      'fuzzy',
      { fuzzy: { title: 'quick fox' } },
      {
        match: {
          'title.text': {
            query: 'quick fox',
            operator: 'and',
            fuzziness: 'AUTO',
            fuzzy_transpositions: true,
            prefix_length: 0,
            max_expansions: 1024,
          },
        },
      },
    ],
    ['keyword', { keyword: { title: 'a b' } }, { match: { 'title.text': { query: 'a b', operator: 'or' } } }],
    ['contains', { contains: { tags: 'x' } }, { term: { tags: 'x' } }],
    [
      'any',
      { any: { lines: { eq: { qty: 2 } } } },
      { nested: { path: 'lines', query: { term: { 'lines.qty': '2' } } } },
    ],
    ['not', { not: { eq: { name: 'a' } } }, { bool: { must_not: [{ term: { name: 'a' } }] } }],
    [
      'and',
      { and: [{ eq: { name: 'a' } }, { eq: { id: 'b' } }] },
      { bool: { filter: [{ term: { name: 'a' } }, { term: { id: 'b' } }] } },
    ],
    ['or', { or: [{ eq: { name: 'a' } }] }, { term: { name: 'a' } }],
    ['flat eq', { eq: { 'meta.size': 5 } }, { term: { 'meta.size': '5' } }],
    [
      'flat eq null',
      { eq: { 'meta.size': null } },
      { bool: { must_not: [{ wildcard: { 'meta.size': { value: '*' } } }] } },
    ],
    ['undeclared path of a typed object', { eq: { 'address.other': 'x' } }, { term: { '_flat.address.other': 'x' } }],
    ['declared path of a typed object', { eq: { 'address.geo.lat': 1 } }, { term: { 'address.geo.lat': 1 } }],
  ])('%s', (_name, filter, expected) => {
    expect(clause(filter)).toEqual(expected);
  });
});
