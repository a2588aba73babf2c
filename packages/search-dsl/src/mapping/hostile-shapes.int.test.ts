import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestIndex, type TestIndex } from '../testing/opensearch-harness.ts';
import { TEST_SCHEMA } from '../testing/test-schema.ts';

const CONNECTOR = 'hostile';
let ix: TestIndex;

function deep(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 'bottom' };
  for (let i = 0; i < levels; i++) value = { [`l${i}`]: value, n: i };
  return value;
}

const big = 'x'.repeat(40_000);
const HOSTILE: Record<string, unknown>[] = [
  { id: 'h01', name: { first: 'an', last: 'object' }, title: ['not', 'a', 'string'], amount: 1 },
  { id: 'h02', name: big, title: `${big} tail`, amount: 2 },
  { id: 'h03', name: 'deep', meta: deep(120), address: { city: 'Oslo', extra: deep(60) } },
  {
    id: 'h04',
    name: null,
    title: null,
    created_at: null,
    amount: null,
    count: null,
    active: null,
    tags: null,
    meta: null,
    address: null,
    lines: null,
  },
  {
    id: 'h05',
    name: 'mixed',
    tags: [1, 'a', { x: 1 }, [2], null, true],
    scores: ['1', 2.5, 'x', null, 3],
    lines: ['x', 1, { sku: { obj: 1 }, qty: 'many' }, [{}], { sku: 'OK', qty: '4' }],
  },
  {
    id: 'h06',
    name: 42,
    created_at: { when: 'now' },
    amount: {},
    count: [1, 2],
    active: 'maybe',
    meta: 'a string',
    address: [1, 2],
    lines: { sku: 'A' },
    blobs: [[1, [2]], { a: null }],
  },
  {
    id: 'h07',
    name: 'keys',
    meta: { '': 'empty', 'a.b': 'dotted', '.': 'dot', 'a..b': 1, big, list: [[1, [2, { z: 'deep' }]]], color: 'green' },
  },
  {
    id: 'h08',
    name: 'extra',
    not_searchable: { anything: [1, 'x'] },
    created_at: '2024-13-45T99:00:00Z',
    count: '99999999999999999999999',
  },
  { id: 'h09', name: 'many lines', lines: Array.from({ length: 2500 }, (_, i) => ({ sku: `S${i}`, qty: i })) },
  {
    id: 'h10',
    name: 'sane',
    title: 'A sane title',
    created_at: '2024-02-10T00:01:56+0000',
    amount: '12.5',
    count: '7',
    active: 'true',
    tags: ['t'],
    meta: { color: 'green' },
    address: { city: 'Oslo' },
  },
  {
    id: 'h11',
    name: 'later object',
    address: { city: { nested: 'object' }, geo: 'north', zip: ['a'] },
    meta: { color: { not: 'scalar' } },
  },
];

beforeAll(async () => {
  ix = await createTestIndex('search-dsl-hostile', TEST_SCHEMA, 'id');
  await ix.load(HOSTILE, CONNECTOR);
});
afterAll(async () => {
  await ix?.drop();
});

async function ids(filter: unknown): Promise<string[]> {
  const page = await ix.search({ query: { filter }, fields: ['id'] }, CONNECTOR);
  return page.data.map((r) => String(r.id));
}

describe('an upstream record is never rejected for its shape', () => {
  it('indexes every hostile record (load throws on any bulk error)', async () => {
    const count = await ix.client.count({ index: ix.index });
    expect(count.body.count).toBe(HOSTILE.length);
    expect(await ids(undefined)).toEqual(HOSTILE.map((r) => r.id));
  });

  it('keeps sane fields searchable', async () => {
    expect(await ids({ eq: { name: 'sane' } })).toEqual(['h10']);
    expect(await ids({ eq: { name: '42' } })).toEqual(['h06']);
    expect(await ids({ gte: { created_at: '2024-02-10' } })).toEqual(['h10']);
    expect(await ids({ eq: { amount: 12.5 } })).toEqual(['h10']);
    expect(await ids({ eq: { count: 7 } })).toEqual(['h10']);
    expect(await ids({ eq: { active: true } })).toEqual(['h10']);
    expect(await ids({ fuzzy: { title: 'sane titel' } })).toEqual(['h10']);
    expect(await ids({ eq: { 'meta.color': 'green' } })).toEqual(['h07', 'h10']);
    expect(await ids({ eq: { 'address.city': 'Oslo' } })).toEqual(['h03', 'h10']);
    expect(await ids({ contains: { tags: 'a' } })).toEqual(['h05']);
    expect(await ids({ contains: { scores: 3 } })).toEqual(['h05']);
    expect(await ids({ any: { lines: { eq: { sku: 'OK' }, gte: { qty: 4 } } } })).toEqual(['h05']);
    expect(await ids({ any: { lines: { eq: { sku: 'S999' } } } })).toEqual(['h09']);
  });

  it('searches long strings by like and fuzzy, though not by exact match (over 8191 characters)', async () => {
    expect(await ids({ like: { name: 'xxxxxxxx%' } })).toEqual(['h02']);
    expect(await ids({ keyword: { title: 'tail' } })).toEqual(['h02']);
    expect(await ids({ eq: { name: big } })).toEqual([]);
  });

  it('keeps undeclared object internals filterable by dotted path, even deep or dotted', async () => {
    expect(await ids({ eq: { 'meta.l119.l118.l117.n': '116' } })).toEqual(['h03']);
    // Beyond 64 levels the builder stops indexing (the value stays in results).
    expect(await ids({ eq: { 'meta.n': 119 } })).toEqual(['h03']);
    expect(await ids({ eq: { 'meta.a.b': 'dotted' } })).toEqual(['h07']);
    expect(await ids({ eq: { 'meta.list.z': 'deep' } })).toEqual(['h07']);
    expect(await ids({ eq: { 'address.extra.l59.n': '58' } })).toEqual(['h03']);
  });

  it('returns the records exactly as the upstream sent them', async () => {
    const page = await ix.search({ query: { filter: { in: { id: ['h01', 'h06'] } } } }, CONNECTOR);
    const { not_searchable: _dropped, ...h06 } = { ...HOSTILE[5]!, not_searchable: undefined };
    expect(page.data).toEqual([HOSTILE[0], h06]);
  });
});
