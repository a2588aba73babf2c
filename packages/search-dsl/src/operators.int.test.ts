import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceSearch, referenceSummary } from './oracle/reference-search.ts';
import { parseSearchParams } from './params/parse-search-params.ts';
import { createTestIndex, type TestIndex } from './testing/opensearch-harness.ts';
import { FIXTURE, TEST_SCHEMA } from './testing/test-schema.ts';
import { validateSearch } from './validate/validate-search.ts';

const CONNECTOR = 'conn-a';
let ix: TestIndex;

beforeAll(async () => {
  ix = await createTestIndex('search-dsl-ops', TEST_SCHEMA, 'id');
  await ix.load(FIXTURE, CONNECTOR);
  // Another connector's records must never show up.
  await ix.load(
    FIXTURE.map((r) => ({ ...r })),
    'conn-b',
  );
});
afterAll(async () => {
  await ix?.drop();
});

async function keys(filter: unknown, sort?: unknown): Promise<string[]> {
  const params = { query: { filter, ...(sort ? { sort } : {}) }, fields: ['id'] };
  const page = await ix.search(params, CONNECTOR);
  const got = page.data.map((r) => String(r.id));
  const search = validateSearch(parseSearchParams(params), { searchable: TEST_SCHEMA });
  const expected = referenceSearch(
    FIXTURE,
    { searchable: TEST_SCHEMA, recordKey: 'id', connectorId: CONNECTOR },
    search,
  );
  expect(got, 'engine agrees with the reference evaluator').toEqual(expected.map((h) => h.key));
  return got;
}

const CASES: [string, unknown, string[]][] = [
  ['eq is exact and case-sensitive', { eq: { name: 'hello there' } }, ['r02']],
  ['eq null matches null and missing', { eq: { name: null } }, ['r04']],
  ['neq matches nulls (IS DISTINCT FROM)', { neq: { name: 'hello there' } }, ['r01', 'r03', 'r04', 'r05']],
  ['neq null is "has a value"', { neq: { count: null } }, ['r01', 'r02', 'r05']],
  ['gt on numbers coerces numeric strings', { gt: { amount: 0 } }, ['r01', 'r03']],
  ['gte on int64 beyond 2^53', { gte: { count: '9007199254740993' } }, ['r01']],
  ['lt on integers', { lt: { count: 7 } }, ['r05']],
  ['decimals compare as amounts, not text', { gt: { price: '1000' } }, ['r02']],
  ['decimal eq ignores trailing zeros and takes numbers', { eq: { price: 0.3 } }, ['r03']],
  ['decimal eq on the exact amount', { in: { price: ['976.080', '-0.1'] } }, ['r01', 'r05']],
  ['decimal ranges are exact at 2 decimals', { lte: { price: '0.30' } }, ['r03', 'r05']],
  ['a too-precise decimal is not indexed (behaves as null)', { eq: { price: null } }, ['r04']],
  ['dates compare as instants across formats', { eq: { created_at: '2024-02-10T00:01:56Z' } }, ['r01', 'r02']],
  ['date ranges', { lt: { created_at: '2024-02-10T00:00:00+00:00' } }, ['r03']],
  ['lte with a bare date', { lte: { created_at: '2024-02-10' } }, ['r03', 'r05']],
  ['string ranges use code point order', { gte: { name: 'hello' } }, ['r02', 'r05']],
  ['in', { in: { name: ['Hello World', 'nope', 'hello there'] } }, ['r01', 'r02']],
  ['boolean eq', { eq: { active: false } }, ['r02']],
  ['like substring, case-insensitive', { like: { name: 'HELLO' } }, ['r01', 'r02']],
  ['like anchored with %', { like: { name: 'hello%' } }, ['r01', 'r02']],
  ['like _ is one character', { like: { name: 'hello_world' } }, ['r01']],
  ['like escapes', { like: { name: '100\\% off\\_sale\\\\now' } }, ['r03']],
  ['like literal * and ?', { like: { name: '*' } }, []],
  ['like accents fold case', { like: { name: 'ünïcode été%' } }, ['r05']],
  ['fuzzy: all words, any order, typos', { fuzzy: { title: 'fox quick' } }, ['r02', 'r03']],
  ['fuzzy tolerates transpositions', { fuzzy: { title: 'quick brown' } }, ['r02', 'r03']],
  ['fuzzy folds accents and case', { fuzzy: { title: 'CREME brulee' } }, ['r01']],
  ['keyword: any word', { keyword: { title: 'elephant recipe' } }, ['r01', 'r05']],
  ['contains on string arrays', { contains: { tags: 'b' } }, ['r01', 'r02']],
  ['contains on integer arrays', { contains: { scores: 2 } }, ['r01']],
  ['any: one element matches all conditions', { any: { lines: { eq: { sku: 'A' }, gt: { qty: 3 } } } }, ['r02']],
  [
    'any with an untyped object inside the element',
    { any: { lines: { eq: { sku: 'A', 'attrs.color': 'red' } } } },
    ['r01'],
  ],
  [
    'any correlates untyped paths with the element',
    { any: { lines: { eq: { sku: 'A', 'attrs.color': 'blue' } } } },
    [],
  ],
  ['any with not inside', { any: { lines: { not: { eq: { sku: 'A' } } } } }, ['r01', 'r03']],
  ['not any', { not: { any: { lines: { eq: { sku: 'A' } } } } }, ['r03', 'r04', 'r05']],
  ['typed object sub-field', { eq: { 'address.city': 'Paris' } }, ['r01']],
  ['deep typed sub-field', { gt: { 'address.geo.lat': 40 } }, ['r01']],
  ['undeclared sub-field of a typed object', { eq: { 'address.extra': 'note' } }, ['r01']],
  ['flat object path', { eq: { 'meta.color': 'red' } }, ['r01']],
  ['flat numbers compare as strings', { eq: { 'meta.size': 5 } }, ['r01']],
  ['flat through arrays', { eq: { 'meta.list.k': 'v2' } }, ['r01']],
  ['flat like', { like: { 'meta.color': 'RED' } }, ['r01', 'r02']],
  ['flat eq null', { eq: { 'meta.color': null } }, ['r03', 'r04', 'r05']],
  [
    'not over a compound matches nulls',
    { not: { and: [{ gt: { amount: 0 } }, { lt: { amount: 100 } }] } },
    ['r02', 'r04', 'r05'],
  ],
  ['or', { or: [{ eq: { id: 'r01' } }, { eq: { active: false } }] }, ['r01', 'r02']],
  ['several operators are ANDed', { like: { name: 'hello%' }, eq: { active: true } }, ['r01']],
];

describe('every operator against OpenSearch', () => {
  for (const [name, filter, expected] of CASES) {
    it(name, async () => {
      expect(await keys(filter)).toEqual(expected);
    });
  }

  it('sorts with missing values last in both directions, ties by record key', async () => {
    expect(await keys(undefined, [{ amount: 'desc' }])).toEqual(['r03', 'r01', 'r05', 'r02', 'r04']);
    expect(await keys(undefined, [{ amount: 'asc' }])).toEqual(['r02', 'r05', 'r01', 'r03', 'r04']);
    expect(await keys(undefined, [{ active: 'asc' }, { name: 'desc' }])).toEqual(['r02', 'r01', 'r05', 'r03', 'r04']);
  });

  it('sorts decimals as amounts (8387.12 before 976.08 descending), paging exactly', async () => {
    expect(await keys(undefined, [{ price: 'desc' }])).toEqual(['r02', 'r01', 'r03', 'r05', 'r04']);
    const first = await ix.search({ query: { sort: [{ price: 'desc' }] }, limit: 1, fields: ['price'] }, CONNECTOR);
    expect(first.data).toEqual([{ price: '8387.12' }]);
    const second = await ix.search(
      { query: { sort: [{ price: 'desc' }] }, limit: 1, fields: ['price'], cursor: first.meta.cursor },
      CONNECTOR,
    );
    expect(second.data).toEqual([{ price: '976.08' }]);
  });

  it('returns the upstream values unchanged, projected to fields', async () => {
    const page = await ix.search(
      { query: { filter: { eq: { id: 'r01' } } }, fields: ['created_at', 'address.city', 'meta.nested', 'count'] },
      CONNECTOR,
    );
    expect(page.data).toEqual([
      {
        created_at: '2024-02-10T00:01:56+0000',
        address: { city: 'Paris' },
        meta: { nested: { deep: 'x' } },
        count: '9007199254740993',
      },
    ]);
    expect(page.meta.has_more).toBe(false);
    expect(typeof page.meta.took_ms).toBe('number');
  });
});

describe('aggregations against OpenSearch', () => {
  const aggregate = async (agg: Record<string, unknown>, filter?: unknown) => {
    const params = { query: filter ? { filter } : {}, aggregate: agg, limit: 0 };
    const page = await ix.search(params, CONNECTOR);
    const search = validateSearch(parseSearchParams(params), { searchable: TEST_SCHEMA });
    expect(page.meta.aggregations, 'engine agrees with the reference evaluator').toEqual(
      referenceSummary(FIXTURE, search).aggregations,
    );
    expect(page.data).toEqual([]);
    return page.meta;
  };

  it('counts exactly, over this connector only, with limit 0 returning no records', async () => {
    const meta = await aggregate({ by_tag: { count_by: 'tags' } });
    expect(meta.total).toEqual({ value: 5, exact: true });
    expect(meta.aggregations).toEqual({
      by_tag: [
        { key: 'b', count: 2 },
        { key: 'a', count: 1 },
      ],
    });
  });

  it('sums decimal amounts exactly (no binary-float drift)', async () => {
    const meta = await aggregate({
      sum: { sum: 'price' },
      avg: { avg: 'price' },
      lo: { min: 'price' },
      hi: { max: 'price' },
    });
    // 976.08 + 8387.12 + 0.3 - 0.10 (r04's amount has 7 decimals and is not indexed): the sum keeps the inputs'
    // largest scale, as an amount of money (Postgres' numeric: 9363.40).
    expect(meta.aggregations).toEqual({
      sum: { value: '9363.40' },
      avg: { value: '2340.85' },
      lo: { value: '-0.1' },
      hi: { value: '8387.12' },
    });
  });

  it('keeps int64 extremes exact and counts integer keys as exact strings', async () => {
    const meta = await aggregate({ hi: { max: 'count' }, lo: { min: 'count' }, by: { count_by: 'count' } });
    expect(meta.aggregations).toMatchObject({
      hi: { value: '9007199254740993' },
      lo: { value: '-2' },
      by: expect.arrayContaining([{ key: '9007199254740993', count: 1 }]),
    });
  });

  it('buckets dates by UTC hour with the empty buckets between', async () => {
    const meta = await aggregate(
      { h: { histogram: 'created_at', interval: 'hour' }, d: { max: 'created_at' } },
      {
        gte: { created_at: '2024-02-09T23:00:00Z' },
      },
    );
    expect(meta.aggregations).toEqual({
      h: [
        { key: '2024-02-09T23:00:00.000Z', count: 1 },
        { key: '2024-02-10T00:00:00.000Z', count: 3 },
      ],
      d: { value: '2024-02-10T00:01:56.000Z' },
    });
  });

  it('answers every kind over no matching records', async () => {
    const meta = await aggregate(
      {
        c: { count_by: 'name' },
        s: { sum: 'price' },
        n: { sum: 'amount' },
        a: { avg: 'count' },
        m: { min: 'price' },
        h: { histogram: 'created_at', interval: 'month' },
      },
      { eq: { id: 'nope' } },
    );
    expect(meta.total).toEqual({ value: 0, exact: true });
    expect(meta.aggregations).toEqual({
      c: [],
      s: { value: '0' },
      n: { value: 0 },
      a: { value: null },
      m: { value: null },
      h: [],
    });
  });
});
