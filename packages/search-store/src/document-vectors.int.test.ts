import { randomBytes } from 'node:crypto';
import type { EntityCatalog } from '@conduit/connectors';
import { indexDocumentId } from '@conduit/search-dsl';
import { Client } from '@opensearch-project/opensearch';
import { afterAll, describe, expect, it } from 'vitest';
import { CopyWriter } from './copy-writer.ts';
import type { UnembeddedText, VectorSource, VectorTarget } from './document-vectors.ts';
import { textHash } from './embedded-text.ts';
import { IndexLifecycle } from './index-lifecycle.ts';
import { things } from './testing/things-entity.ts';

const client = new Client({ node: (process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200').split(',')[0]! });
const namespace = `t_vectors_${randomBytes(4).toString('hex')}`;
const embedded: EntityCatalog = { ...things, embed: ['name'] };
const vector = (seed: number) => Array.from({ length: 384 }, (_, i) => ((i * seed) % 7) / 7 - 0.4);

/** Vectors known by hash, and the texts the store says it left without one. */
class FakeVectors implements VectorSource {
  readonly known_ = new Map<string, number[]>();
  readonly told: { target: VectorTarget; texts: readonly UnembeddedText[] }[] = [];
  async known(_target: VectorTarget, hashes: readonly string[]) {
    return new Map(hashes.flatMap((h) => (this.known_.has(h) ? [[h, this.known_.get(h)!] as const] : [])));
  }
  async unembedded(target: VectorTarget, texts: readonly UnembeddedText[]) {
    this.told.push({ target, texts });
  }
}

/** The copy of the test's namespace: its indexes and its writer, both with the same vector source when given. */
function copyOf(vectors?: VectorSource) {
  const indexes = new IndexLifecycle(client, namespace, { replicas: 0, ...(vectors ? { vectors } : {}) });
  return { indexes, writer: new CopyWriter(client, indexes, vectors ? { vectors } : {}) };
}

async function stored(connectorId: string, key: string) {
  const response = await client.get({
    index: copyOf().indexes.alias('Kind', 'things'),
    id: indexDocumentId(connectorId, key),
    routing: connectorId,
  });
  return (response.body as { _source: { _embedding?: number[]; _embedding_hash?: string } })._source;
}

describe('IndexLifecycle and CopyWriter: the vectors of embedded texts', () => {
  afterAll(async () => {
    await client.indices.delete({ index: `${namespace}_*` }).catch(() => undefined);
    await client.close();
  });
  const c = 'conn-vectors';

  it('queues for embedding the records a new mapping version copies without a vector, once the alias moved', async () => {
    // Written before the entity embedded anything.
    await copyOf().writer.writeRecords('Kind', things, c, 'run-1', [{ id: 'a', name: 'checkout down' }, { id: 'b' }], {
      readAt: 1000,
      refresh: true,
    });
    const vectors = new FakeVectors();
    const store = copyOf(vectors);
    await store.indexes.ensureIndex('Kind', embedded);
    expect(vectors.told).toEqual([
      {
        target: { connectorType: 'Kind', entity: 'things', connectorId: c },
        texts: [{ id: indexDocumentId(c, 'a'), hash: textHash('checkout down'), text: 'checkout down' }],
      },
    ]);
    expect((await stored(c, 'a'))._embedding_hash).toBe(textHash('checkout down'));
    // The job's vector lands on the document that still holds that text.
    const set = await store.writer.setVectors('Kind', 'things', c, [
      { id: indexDocumentId(c, 'a'), hash: textHash('checkout down'), vector: vector(3) },
    ]);
    expect(set).toBe(1);
    expect((await stored(c, 'a'))._embedding).toHaveLength(384);
  });

  it('attaches a known vector on write without queueing, and never sets a late vector on a changed text', async () => {
    const vectors = new FakeVectors();
    vectors.known_.set(textHash('login fails'), vector(5));
    const store = copyOf(vectors);
    await store.writer.writeRecords(
      'Kind',
      embedded,
      c,
      'run-2',
      [
        { id: 'k', name: 'login fails' },
        { id: 'n', name: 'disk full' },
      ],
      {
        readAt: 2000,
        refresh: true,
      },
    );
    expect((await stored(c, 'k'))._embedding).toHaveLength(384);
    expect(vectors.told.flatMap((t) => t.texts.map((x) => x.text))).toEqual(['disk full']);
    // 'n' is rewritten with another text before its job ran: the job's vector for the old text is not set.
    await store.writer.writeRecords('Kind', embedded, c, 'run-3', [{ id: 'n', name: 'storage exhausted' }], {
      readAt: 3000,
      refresh: true,
    });
    const set = await store.writer.setVectors('Kind', 'things', c, [
      { id: indexDocumentId(c, 'n'), hash: textHash('disk full'), vector: vector(2) },
    ]);
    expect(set).toBe(0);
    expect((await stored(c, 'n'))._embedding).toBeUndefined();
    // The rewrite kept its record version: a later read still lands, an older one does not.
    const later = await store.writer.writeRecords('Kind', embedded, c, 'run-4', [{ id: 'k', name: 'login fails' }], {
      readAt: 4000,
      refresh: true,
    });
    expect(later).toMatchObject({ indexed: 1, skipped: 0, stale: 0 });
  });
});
