import { afterAll, beforeAll, describe, it } from 'vitest';
import { checkAgainstReference } from './testing/differential-check.ts';
import { createTestIndex, type TestIndex } from './testing/opensearch-harness.ts';
import { TEST_SCHEMA } from './testing/test-schema.ts';

/** Shrunk counterexamples the differential test once found, kept as named cases. */
let ix: TestIndex;
beforeAll(async () => {
  ix = await createTestIndex('search-dsl-regr', TEST_SCHEMA, 'id');
});
afterAll(async () => {
  await ix?.drop();
});

describe('differential regressions', () => {
  it('pages past records with a missing date when sorting by that date (Long.MAX sentinel in search_after)', async () => {
    await checkAgainstReference(
      ix,
      [{ id: 'a' }, { id: '-' }, { id: 'é' }],
      [
        { sort: [{ created_at: 'asc' }], pageSize: 1 },
        { sort: [{ created_at: 'desc' }], pageSize: 1 },
      ],
    );
  });

  it('pages exactly past int64 values beyond 2^53 (sort values are doubles in JSON)', async () => {
    await checkAgainstReference(
      ix,
      [
        { id: 'a', count: '9007199254740993' },
        { id: 'b', count: '9007199254740992' },
        { id: 'c', count: '9007199254740993' },
        { id: 'd' },
      ],
      [
        { sort: [{ count: 'asc' }], pageSize: 1 },
        { sort: [{ count: 'desc' }], pageSize: 1 },
      ],
    );
  });

  it('keeps int64 array values exact in results (no bigint parsing of responses)', async () => {
    await checkAgainstReference(
      ix,
      [{ id: '-9', scores: [-9007199254740992] }, { id: 'é' }, { id: 'Ba' }],
      [{ sort: [], pageSize: 1 }],
    );
  });

  it('sorts an amount at the top of the long range apart from missing ones (Long.MAX is the _last sentinel)', async () => {
    await checkAgainstReference(
      ix,
      [
        { id: 'a' },
        { id: '𝔸' },
        { id: '9' },
        { id: 'é', price: '9223372036854.775807' },
        { id: 'b', price: '9223372036854.775806' },
      ],
      [
        { sort: [{ price: 'asc' }], pageSize: 1 },
        { sort: [{ price: 'desc' }], pageSize: 2 },
      ],
    );
  });
});
