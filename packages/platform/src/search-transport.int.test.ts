import { randomBytes } from 'node:crypto';
import { Client } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchTransport } from './search-transport.ts';

const url = process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200';
const client = new Client({ node: url });
const index = `t_transport_${randomBytes(4).toString('hex')}`;
const transport = new SearchTransport(url);

describe('SearchTransport', () => {
  beforeAll(async () => {
    await client.indices.create({ index, body: { settings: { number_of_shards: 1, number_of_replicas: 0 } } });
    await client.index({ index, id: 'a', routing: 'r1', body: { name: 'first' }, refresh: true });
  });
  afterAll(async () => {
    await client.indices.delete({ index }).catch(() => undefined);
    await transport.close();
    await client.close();
  });

  it('answers the status and the parsed body, without the per-hit fields it filters out', async () => {
    const answer = await transport.search(index, 'r1', { query: { match_all: {} } });
    expect(answer.statusCode).toBe(200);
    const body = answer.body as { hits: { hits: Record<string, unknown>[] }; _shards?: unknown };
    expect(body.hits.hits).toEqual([{ _source: { name: 'first' } }]);
    expect(body._shards).toBeUndefined();
  });

  it('hands back an engine error as its status and body (a missing index is a 404)', async () => {
    const missing = await transport.search(`${index}_missing`, 'r1', { query: { match_all: {} } });
    expect(missing.statusCode).toBe(404);
    expect((missing.body as { error: { type: string } }).error.type).toBe('index_not_found_exception');
    const invalid = await transport.search(index, 'r1', { query: { no_such_query: {} } });
    expect(invalid.statusCode).toBe(400);
  });

  it('answers many searches at once, each with its own body', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => transport.search(index, 'r1', { size: i % 2, query: { match_all: {} } })),
    );
    // filter_path leaves an empty hits.hits out of the answer (search-service puts it back).
    expect(answers.map((a) => (a.body as { hits: { hits?: unknown[] } }).hits.hits?.length ?? 0)).toEqual(
      Array.from({ length: 20 }, (_, i) => i % 2),
    );
  });

  it('rejects when the node cannot be reached', async () => {
    const nowhere = new SearchTransport('http://127.0.0.1:1');
    await expect(nowhere.search(index, 'r1', {})).rejects.toThrow();
    await nowhere.close();
  });
});
