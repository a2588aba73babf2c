import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestIndex, type TestIndex } from './testing/opensearch-harness.ts';
import { sqlOver } from './testing/sql-harness.ts';
import { TEST_SCHEMA } from './testing/test-schema.ts';

/** Sums of money read as money: the scale of the amounts summed is kept, as Postgres' numeric keeps it. */
describe('sums of decimal amounts against OpenSearch', () => {
  let ix: TestIndex;
  beforeAll(async () => {
    ix = await createTestIndex('search-dsl-money', TEST_SCHEMA, 'id');
    await ix.load(
      [
        { id: 'i1', price: '976.08' },
        { id: 'i2', price: '8387.12' },
        { id: 'i3', price: '100.50' },
        { id: 'i4', price: null },
      ],
      'conn-money',
    );
  });
  afterAll(() => ix?.drop());

  it('search `sum` keeps the inputs’ scale: 976.08 + 8387.12 + 100.50 = 9463.70', async () => {
    const page = await ix.search({ query: {}, limit: 0, aggregate: { total: { sum: 'price' } } }, 'conn-money');
    expect(page.meta.aggregations).toEqual({ total: { value: '9463.70' } });
  });

  it('SQL SUM, overall and per group, keeps it too', async () => {
    const sql = sqlOver(ix);
    const overall = await sql({ query: 'SELECT SUM(price) AS total FROM things' }, 'conn-money');
    expect(overall.data).toEqual([{ total: '9463.70' }]);
    const grouped = await sql(
      { query: "SELECT id, SUM(price) AS total FROM things WHERE id IN ('i2', 'i3') GROUP BY id ORDER BY id" },
      'conn-money',
    );
    expect(grouped.data).toEqual([
      { id: 'i2', total: '8387.12' },
      { id: 'i3', total: '100.50' },
    ]);
  });
});
