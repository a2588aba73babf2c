import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceSearch } from './oracle/reference-search.ts';
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
