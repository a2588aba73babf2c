import type { FieldMap, FieldSpec } from '@conduit/connectors';

const s = (type: 'string' | 'datetime' | 'integer' | 'number' | 'decimal' | 'boolean'): FieldSpec => ({
  type,
  nullable: true,
});

/** A searchable-fields map with every field shape the compiler handles (tests only). */
export const TEST_SCHEMA: FieldMap = {
  id: { type: 'string', nullable: false },
  name: s('string'),
  title: s('string'),
  created_at: s('datetime'),
  amount: s('number'),
  count: s('integer'),
  price: s('decimal'),
  active: s('boolean'),
  tags: { type: 'array', nullable: true, items: s('string') },
  scores: { type: 'array', nullable: true, items: s('integer') },
  meta: { type: 'object', nullable: true },
  address: {
    type: 'object',
    nullable: true,
    fields: {
      city: s('string'),
      zip: s('string'),
      geo: { type: 'object', nullable: true, fields: { lat: s('number') } },
    },
  },
  lines: {
    type: 'array',
    nullable: true,
    items: {
      type: 'object',
      nullable: true,
      fields: { sku: s('string'), qty: s('integer'), at: s('datetime'), attrs: { type: 'object', nullable: true } },
    },
  },
  blobs: { type: 'array', nullable: true },
};

/** Fixture records covering each operator's edge cases (tests only). */
export const FIXTURE: Record<string, unknown>[] = [
  {
    id: 'r01',
    name: 'Hello World',
    title: 'Crème Brûlée recipe',
    created_at: '2024-02-10T00:01:56+0000',
    amount: 10.5,
    count: '9007199254740993',
    price: '976.08',
    active: true,
    tags: ['a', 'b'],
    scores: [1, 2],
    meta: { color: 'red', size: 5, nested: { deep: 'x' }, list: [{ k: 'v1' }, { k: 'v2' }] },
    address: { city: 'Paris', zip: '75001', geo: { lat: 48.8 }, extra: 'note' },
    lines: [
      { sku: 'A', qty: 1, at: '2024-01-01', attrs: { color: 'red' } },
      { sku: 'B', qty: 5, attrs: { color: 'blue' } },
    ],
  },
  {
    id: 'r02',
    name: 'hello there',
    title: 'Quick brown fox',
    created_at: '2024-02-10T01:01:56+01:00',
    amount: -3,
    count: 7,
    price: '8387.12',
    active: false,
    tags: ['b'],
    meta: { color: 'Red' },
    address: { city: 'paris', zip: null },
    lines: [{ sku: 'A', qty: 7 }],
  },
  {
    id: 'r03',
    name: '100% off_sale\\now',
    title: 'The quikc brwn fox jumps',
    created_at: '2024-02-09T23:00:00Z',
    amount: '42',
    count: null,
    price: 0.3,
    active: null,
    tags: [],
    meta: null,
    address: 'not an object',
    lines: [{ sku: 'C', qty: 2 }, 'junk', null],
  },
  {
    id: 'r04',
    name: null,
    title: null,
    created_at: 'not a date',
    amount: 'abc',
    count: 1.5,
    price: '0.0000001',
    lines: {},
  },
  {
    id: 'r05',
    name: 'Ünïcode ÉTÉ 𝔸',
    title: 'éléphant rose',
    created_at: '2024-02-10',
    amount: 0,
    count: -2,
    price: '-0.10',
  },
];
