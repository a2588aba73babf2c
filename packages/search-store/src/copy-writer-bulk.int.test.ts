import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type EntityCatalog, t } from '@conduit/connectors';
import { Client } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CopyWriter } from './copy-writer.ts';
import { IndexLifecycle } from './index-lifecycle.ts';

const OPENSEARCH = (process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200').split(',')[0]!.trim();
const namespace = `t_bulk_${randomBytes(4).toString('hex')}`;
const entity: EntityCatalog = {
  name: 'things',
  recordKey: 'id',
  record: { id: t.string(), name: t.string() },
  searchable: { id: t.string(), name: t.string() },
  actions: {},
  sync: { mode: 'full_refresh' },
};

/**
 * OpenSearch behind a proxy that can report the first two items of a `_bulk` answer as refused: with 429 (the
 * engine's answer when its write queue is full, per item) or any other status.
 */
class RefusingProxy {
  readonly bulkBodies: string[] = [];
  /** The next `_bulk` answer reports its first two items refused with this status and error type. */
  refuse: [number, string] | null = null;
  server!: Server;
  get url() {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  async start() {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString();
      const upstream = await fetch(`${OPENSEARCH}${req.url}`, {
        method: req.method,
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        ...(body ? { body } : {}),
      });
      let text = await upstream.text();
      if (new URL(req.url ?? '/', 'http://proxy').pathname === '/_bulk') {
        this.bulkBodies.push(body);
        if (this.refuse !== null) {
          const [status, type] = this.refuse;
          this.refuse = null;
          const answer = JSON.parse(text) as { errors: boolean; items: Record<string, Record<string, unknown>>[] };
          for (const item of answer.items.slice(0, 2)) item.index = { ...item.index, status, error: { type } };
          answer.errors = true;
          text = JSON.stringify(answer);
        }
      }
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
  }
}

describe('CopyWriter.writeRecords through the bulk helper', () => {
  const proxy = new RefusingProxy();
  let client: Client;
  let store: CopyWriter;
  beforeAll(async () => {
    await proxy.start();
    client = new Client({ node: proxy.url });
    store = new CopyWriter(client, new IndexLifecycle(client, namespace, { replicas: 0 }), {
      bulk: { flushBytes: 500_000, concurrency: 1 },
    });
  });
  afterAll(async () => {
    await new Client({ node: OPENSEARCH }).indices.delete({ index: `${namespace}_*` }).catch(() => undefined);
    await client.close();
    proxy.server.close();
  });

  it('sends the items refused with 429 again, and only those', async () => {
    const records = Array.from({ length: 50 }, (_, i) => ({ id: `r${i}`, name: `thing ${i}` }));
    proxy.bulkBodies.length = 0;
    proxy.refuse = [429, 'es_rejected_execution_exception'];
    const started = performance.now();
    const { indexed, skipped, stale } = await store.writeRecords('Kind', entity, 'conn-1', 'run-1', records, {
      readAt: Date.now(),
      refresh: true,
    });
    expect({ indexed, skipped, stale }).toEqual({ indexed: 50, skipped: 0, stale: 0 });
    expect(proxy.bulkBodies).toHaveLength(2);
    // The retry carries the two refused documents (action + source lines), after the helper's pause.
    const retried = proxy.bulkBodies[1]!.trim().split('\n');
    expect(retried).toHaveLength(4);
    expect(retried[1]).toContain('"r0"');
    expect(retried[3]).toContain('"r1"');
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
    expect(await store.count('Kind', 'things', 'conn-1')).toBe(50);
  });

  it('fails the page when an item is refused for any other reason', async () => {
    const records = Array.from({ length: 5 }, (_, i) => ({ id: `q${i}`, name: `thing ${i}` }));
    proxy.bulkBodies.length = 0;
    proxy.refuse = [400, 'mapper_parsing_exception'];
    await expect(
      store.writeRecords('Kind', entity, 'conn-2', 'run-1', records, { readAt: Date.now() }),
    ).rejects.toThrow(/bulk indexing failed for 2 documents: .*mapper_parsing_exception/);
    expect(proxy.bulkBodies).toHaveLength(1);
  });
});
