import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CopySearch } from './copy-search.ts';
import { EngineQueryError, SearchTimeoutError } from './search-errors.ts';

const url = (process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200').split(',')[0]!.trim();
const client = new Client({ node: url });
const index = `t_copy_search_${randomBytes(4).toString('hex')}`;

/**
 * The engine behind a proxy that, when told, reports its next search answer as cut at the engine's timeout (a
 * real answer with `timed_out` set, as the engine sends it when it stops collecting).
 */
async function timingOutProxy(): Promise<{ url: string; server: Server; cutNext: () => void }> {
  let cut = false;
  const server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const answer = await fetch(`${url}${incoming.url}`, {
      method: incoming.method ?? 'POST',
      headers: { 'content-type': incoming.headers['content-type'] ?? 'application/json' },
      body: Buffer.concat(chunks),
    });
    let text = await answer.text();
    if (cut) {
      cut = false;
      text = text.replace('"timed_out":false', '"timed_out":true');
    }
    outgoing.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    cutNext: () => {
      cut = true;
    },
  };
}

describe('CopySearch: the engine answers become typed failures', () => {
  let proxy: Awaited<ReturnType<typeof timingOutProxy>>;
  let search: CopySearch;
  beforeAll(async () => {
    await client.indices.create({ index, body: { mappings: { properties: { name: { type: 'keyword' } } } } });
    await client.index({ index, id: '1', routing: 'c', body: { name: 'a' }, refresh: true });
    proxy = await timingOutProxy();
    search = new CopySearch(proxy.url, { requests: 2 });
  });
  afterAll(async () => {
    await search.close();
    proxy.server.close();
    await client.indices.delete({ index }, { ignore: [404] });
    await client.close();
  });

  it('answers a search with the engine bytes', async () => {
    const answer = await search.search(index, 'c', { query: { term: { name: 'a' } } });
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.json.toString()).hits.hits).toHaveLength(1);
  });

  it('passes a missing index through as a 404 (nothing synced yet), not as an error', async () => {
    const answer = await search.search(`${index}_none`, 'c', { query: { match_all: {} } });
    expect(answer.statusCode).toBe(404);
  });

  it("rejects a refused search with EngineQueryError holding the engine's own error", async () => {
    const failure = await search.search(index, 'c', { query: { no_such_query: {} } }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(EngineQueryError);
    expect((failure as EngineQueryError).status).toBe(400);
    expect(JSON.stringify((failure as EngineQueryError).answer)).toContain('parsing_exception');
  });

  it('rejects an answer cut at the engine timeout with SearchTimeoutError, not a partial page', async () => {
    proxy.cutNext();
    await expect(search.search(index, 'c', { query: { match_all: {} } })).rejects.toBeInstanceOf(SearchTimeoutError);
    // The next search is answered as usual.
    expect((await search.search(index, 'c', { query: { match_all: {} } })).statusCode).toBe(200);
  });
});
