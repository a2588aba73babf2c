import { randomBytes } from 'node:crypto';
import { type EntityCatalog, t } from '@conduit/connectors';
import { planSearch, readSearchPage } from '@conduit/search-dsl';
import { Client } from '@opensearch-project/opensearch';
import { afterAll, describe, expect, it } from 'vitest';
import { CopyWriter } from './copy-writer.ts';
import { IndexLifecycle } from './index-lifecycle.ts';
import { things } from './testing/things-entity.ts';

const client = new Client({ node: (process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200').split(',')[0]!.trim() });
const namespace = `t_lifecycle_${randomBytes(4).toString('hex')}`;

const v1 = things;
// The mapping changes: `size` becomes a number (upstream sent numeric strings all along).
const v2: EntityCatalog = { ...v1, searchable: { ...v1.searchable, size: t.integer() } };

async function searchAll(store: IndexLifecycle, entity: EntityCatalog, connectorId: string, filter?: object) {
  const plan = planSearch(
    { query: filter ? { filter } : {}, limit: 10000 },
    { searchable: entity.searchable!, recordKey: 'id', connectorId, entity: 'things', cursorKey: 'k'.repeat(32) },
  );
  const response = await client.search({
    index: store.alias('Kind', 'things'),
    routing: connectorId,
    body: plan.body as never,
  });
  return readSearchPage(response.body, plan.page).data;
}

describe('index lifecycle', () => {
  afterAll(async () => {
    await client.indices.delete({ index: `${namespace}_*` }).catch(() => undefined);
    await client.close();
  });

  it('builds a new index version when the mapping changes and swaps the alias with no failing or partial search', async () => {
    const connectorId = 'conn-1';
    const records = Array.from({ length: 2500 }, (_, i) => ({ id: `r${i}`, name: `thing ${i}`, size: String(i) }));
    const old = new IndexLifecycle(client, namespace, { replicas: 0 });
    const writer = new CopyWriter(client, old, { bulk: { flushBytes: 500_000, concurrency: 1 } });
    for (let i = 0; i < records.length; i += 500) {
      await writer.writeRecords('Kind', v1, connectorId, 'run-1', records.slice(i, i + 500), { readAt: 1000 + i });
    }
    await old.refresh('Kind', 'things');
    expect(await writer.count('Kind', 'things', connectorId)).toBe(2500);

    // Searches keep running while a new process (new mapping) migrates the index.
    let migrating = true;
    const observed: number[] = [];
    const searcher = (async () => {
      while (migrating) observed.push((await searchAll(old, v1, connectorId)).length);
    })();
    const upgraded = new IndexLifecycle(client, namespace, { replicas: 0 });
    await upgraded.ensureIndex('Kind', v2);
    migrating = false;
    await searcher;

    expect(observed.length).toBeGreaterThan(0);
    expect(observed.every((n) => n === 2500)).toBe(true);
    const aliases = (await client.indices.getAlias({ name: upgraded.alias('Kind', 'things') })).body as Record<
      string,
      unknown
    >;
    expect(Object.keys(aliases)).toHaveLength(1);
    // The new mapping is in force on the copied documents: `size` compares as a number now.
    const big = await searchAll(upgraded, v2, connectorId, { gte: { size: 2400 } });
    expect(big).toHaveLength(100);
    expect(big.every((r) => Number(r.size) >= 2400)).toBe(true);
  }, 120_000);
});
