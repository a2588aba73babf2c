import { randomBytes } from 'node:crypto';
import { type EntityCatalog, t } from '@conduit/connectors';
import type { WrittenChanges } from '@conduit/db';
import { indexDocumentId, planSearch, readSearchPage } from '@conduit/search-dsl';
import { Client } from '@opensearch-project/opensearch';
import { afterAll, describe, expect, it } from 'vitest';
import { type CopyWriteOptions, CopyWriter } from './copy-writer.ts';
import { IndexLifecycle } from './index-lifecycle.ts';
import { things } from './testing/things-entity.ts';

const client = new Client({ node: process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200' });
const namespace = `t_versions_${randomBytes(4).toString('hex')}`;

const BULK = { flushBytes: 500_000, concurrency: 1 };

/** The copy of one namespace, and every write it applied, in order (what a writer appends to the feed). */
class RecordingCopy {
  readonly indexes = new IndexLifecycle(client, namespace, { replicas: 0 });
  readonly writer = new CopyWriter(client, this.indexes, { bulk: BULK });
  readonly seen: WrittenChanges[] = [];
  alias = (type: string, entity: string) => this.indexes.alias(type, entity);
  refresh = (type: string, entity: string) => this.indexes.refresh(type, entity);
  ensureIndex = (type: string, entity: EntityCatalog) => this.indexes.ensureIndex(type, entity);
  count = (type: string, entity: string, c: string) => this.writer.count(type, entity, c);
  deleteConnector = (type: string, entities: string[], c: string) => this.writer.deleteConnector(type, entities, c);
  purgeTombstones = (before: number) => this.writer.purgeTombstones(before);

  async writeBatch(...write: Parameters<CopyWriter['writeRecords']>) {
    const { indexed, skipped, stale, ...written } = await this.writer.writeRecords(...write);
    this.#record(written);
    return { indexed, skipped, stale };
  }

  async removeRecords(type: string, entity: EntityCatalog, c: string, keys: string[], options: CopyWriteOptions) {
    const written = await this.writer.writeRemovals(type, entity, c, keys, options);
    this.#record(written);
    return written.applied.length;
  }

  async removeNotWrittenBy(type: string, entity: EntityCatalog, c: string, runId: string, readAt: number) {
    let removed = 0;
    for await (const written of this.writer.removeNotWrittenBy(type, entity, c, runId, readAt)) {
      this.#record(written);
      removed += written.applied.length;
    }
    return removed;
  }

  #record(written: WrittenChanges) {
    if (written.applied.length > 0) this.seen.push(written);
  }
}

async function search(store: RecordingCopy, entity: EntityCatalog, connectorId: string, aggregate?: object) {
  const plan = planSearch(
    { query: {}, limit: 100, ...(aggregate ? { aggregate } : {}) },
    { searchable: entity.searchable!, recordKey: 'id', connectorId, entity: 'things', cursorKey: 'k'.repeat(32) },
  );
  const response = await client.search({
    index: store.alias('Kind', 'things'),
    routing: connectorId,
    body: plan.body as never,
  });
  return readSearchPage(response.body, plan.page);
}

async function versionOf(store: RecordingCopy, connectorId: string, key: string): Promise<number> {
  const response = await client.get({
    index: store.alias('Kind', 'things'),
    id: indexDocumentId(connectorId, key),
    routing: connectorId,
  });
  return (response.body as { _version: number })._version;
}

describe('CopyWriter: versioned writes and tombstones', () => {
  const store = new RecordingCopy();
  const sink = store;
  afterAll(async () => {
    await client.indices.delete({ index: `${namespace}_*` }).catch(() => undefined);
    await client.close();
  });

  it('keeps the newest read of a record whatever order the writes arrive in, and reports only applied writes', async () => {
    const c = 'conn-order';
    const newer = await store.writeBatch('Kind', things, c, 'run-1', [{ id: 'a', name: 'new' }], {
      readAt: 2000,
      refresh: true,
    });
    const older = await store.writeBatch('Kind', things, c, 'run-1', [{ id: 'a', name: 'old' }], {
      readAt: 1000,
      refresh: true,
    });
    expect(newer).toEqual({ indexed: 1, skipped: 0, stale: 0 });
    expect(older).toEqual({ indexed: 0, skipped: 0, stale: 1 });
    expect((await search(store, things, c)).data).toEqual([{ id: 'a', name: 'new' }]);
    expect(await versionOf(store, c, 'a')).toBe(2000);
    // The same read written again (a retried page) lands again: versions are compared with external_gte.
    const again = await store.writeBatch('Kind', things, c, 'run-1', [{ id: 'a', name: 'new' }], { readAt: 2000 });
    expect(again.indexed).toBe(1);
    const applied = sink.seen.filter((s) => s.target.connectorId === c).flatMap((s) => s.applied);
    expect(applied.map((w) => [w.kind, w.version])).toEqual([
      ['upsert', 2000],
      ['upsert', 2000],
    ]);
  });

  it('within one batch, the newest of several reads of a record stands for it', async () => {
    const c = 'conn-batch';
    const batch = await store.writeBatch(
      'Kind',
      things,
      c,
      'run-1',
      [
        { id: 'b', name: 'second' },
        { id: 'b', name: 'first' },
      ],
      { readAt: [20, 10], refresh: true },
    );
    expect(batch.indexed).toBe(1);
    expect((await search(store, things, c)).data).toEqual([{ id: 'b', name: 'second' }]);
  });

  it('a removal leaves a tombstone: not searched, counted, aggregated; a late older page cannot bring it back', async () => {
    const c = 'conn-removal';
    await store.writeBatch(
      'Kind',
      things,
      c,
      'run-1',
      [
        { id: 'x', name: 'x', size: 's' },
        { id: 'y', name: 'y', size: 's' },
      ],
      {
        readAt: 100,
        refresh: true,
      },
    );
    expect(await store.removeRecords('Kind', things, c, ['x'], { readAt: 200, refresh: true })).toBe(1);
    const page = await search(store, things, c, { sizes: { count_by: 'size' } });
    expect(page.data.map((r) => r.id)).toEqual(['y']);
    expect(page.meta.total).toEqual({ value: 1, exact: true });
    expect(JSON.stringify(page.meta.aggregations)).toContain('"count":1');
    expect(await store.count('Kind', 'things', c)).toBe(1);
    // A page read before the removal, written after it.
    const late = await store.writeBatch('Kind', things, c, 'run-1', [{ id: 'x', name: 'x' }], {
      readAt: 150,
      refresh: true,
    });
    expect(late.stale).toBe(1);
    expect((await search(store, things, c)).data.map((r) => r.id)).toEqual(['y']);
    // A removal older than the copy's record is dropped in turn.
    expect(await store.removeRecords('Kind', things, c, ['y'], { readAt: 50, refresh: true })).toBe(0);
    expect(await store.count('Kind', 'things', c)).toBe(1);
    // A record read again after its removal is back.
    await store.writeBatch('Kind', things, c, 'run-2', [{ id: 'x', name: 'x again' }], { readAt: 300, refresh: true });
    expect((await search(store, things, c)).data.map((r) => r.id)).toEqual(['x', 'y']);
  });

  it('a full pass removes what it did not write with its start instant, and keeps a record read after that', async () => {
    const c = 'conn-pass';
    await store.writeBatch('Kind', things, c, 'run-1', [{ id: 'gone' }, { id: 'kept' }, { id: 'reread' }], {
      readAt: 100,
      refresh: true,
    });
    // The pass began reading at 500 and saw only `kept`; a webhook re-read `reread` at 700 (stamped with another run).
    await store.writeBatch('Kind', things, c, 'run-2', [{ id: 'kept' }], { readAt: 500 });
    await store.writeBatch('Kind', things, c, 'refresh', [{ id: 'reread' }], { readAt: 700, refresh: true });
    const removed = await store.removeNotWrittenBy('Kind', things, c, 'run-2', 500);
    expect(removed).toBe(1);
    expect((await search(store, things, c)).data.map((r) => r.id)).toEqual(['kept', 'reread']);
    const removals = sink.seen.filter((s) => s.target.connectorId === c && s.target.source === 'full_pass');
    expect(removals.flatMap((s) => s.applied)).toEqual([{ kind: 'remove', key: 'gone', version: 500 }]);
    // Run again (an interrupted end resumed): nothing more, the tombstone is not rewritten.
    expect(await store.removeNotWrittenBy('Kind', things, c, 'run-2', 500)).toBe(0);
  });

  it("deleting a connector removes a batch written just before, not yet refreshed (a run's last write)", async () => {
    const c = 'conn-deleted';
    await store.writeBatch('Kind', things, c, 'run-1', [{ id: 'a' }, { id: 'b' }], { readAt: 100 });
    await store.deleteConnector('Kind', ['things'], c);
    await client.indices.refresh({ index: store.alias('Kind', 'things') });
    expect(await store.count('Kind', 'things', c)).toBe(0);
  });

  it('a new mapping version copies documents and tombstones with their versions', async () => {
    const c = 'conn-copy';
    await store.writeBatch('Kind', things, c, 'run-1', [{ id: 'live', name: 'n', size: '5' }], { readAt: 4000 });
    await store.removeRecords('Kind', things, c, ['dead'], { readAt: 4500, refresh: true });
    const upgraded = new RecordingCopy();
    const v2: EntityCatalog = { ...things, searchable: { ...things.searchable, size: t.integer() } };
    await upgraded.ensureIndex('Kind', v2);
    expect(await versionOf(upgraded, c, 'live')).toBe(4000);
    expect(await versionOf(upgraded, c, 'dead')).toBe(4500);
    // The copied tombstone still refuses an older page.
    const late = await upgraded.writeBatch('Kind', v2, c, 'run-1', [{ id: 'dead' }], { readAt: 4400, refresh: true });
    expect(late.stale).toBe(1);
    expect((await search(upgraded, v2, c)).data.map((r) => r.id)).toEqual(['live']);
  });

  it('purges tombstones older than the retention, and only those', async () => {
    const c = 'conn-purge';
    const store2 = new RecordingCopy();
    await store2.writeBatch('Kind', things, c, 'run-1', [{ id: 'p1' }, { id: 'p2' }], { readAt: 10 });
    await store2.removeRecords('Kind', things, c, ['p1'], { readAt: 1_000 });
    await store2.removeRecords('Kind', things, c, ['p2'], { readAt: 9_000, refresh: true });
    await store2.purgeTombstones(5_000);
    await store2.refresh('Kind', 'things');
    const exists = async (key: string) =>
      (
        await client.exists({
          index: store2.alias('Kind', 'things'),
          id: indexDocumentId(c, key),
          routing: c,
        })
      ).body;
    expect(await exists('p1')).toBe(false);
    expect(await exists('p2')).toBe(true);
  });
});
