import { randomBytes } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SearchAnswer, SearchTransport } from './search-transport.ts';

const url = (process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200').split(',')[0]!.trim();
const client = new Client({ node: url });
const index = `t_transport_${randomBytes(4).toString('hex')}`;
const transport = new SearchTransport(url, { requests: 8 });

type RecordingProxy = { url: string; paths: string[]; server: Server; releaseFirst: () => void };

/**
 * A proxy to the engine that records the paths asked for. With `holdFirst`, the first request is held until
 * `releaseFirst()`: a slow search whose end the test decides, whatever the machine's load.
 */
async function recordingProxy(options: { holdFirst?: boolean } = {}): Promise<RecordingProxy> {
  const target = new URL(url);
  const paths: string[] = [];
  let releaseFirst = () => {};
  const firstReleased = new Promise<void>((resolve) => {
    releaseFirst = resolve;
  });
  const server = createServer(async (incoming, outgoing) => {
    paths.push(incoming.url ?? '');
    if (paths.length === 1 && options.holdFirst) await firstReleased;
    const forwarded = request(
      {
        host: target.hostname,
        port: target.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths, server, releaseFirst };
}

/** A transport of one request at a time that goes through a recording proxy, for `use`; both closed after. */
async function throughProxy(
  use: (oneRequest: SearchTransport, proxy: RecordingProxy) => Promise<void>,
  options: { holdFirst?: boolean; maxWaitMs?: number } = {},
): Promise<void> {
  const proxy = await recordingProxy({ holdFirst: options.holdFirst });
  const oneRequest = new SearchTransport(proxy.url, { requests: 1, maxWaitMs: options.maxWaitMs });
  try {
    await use(oneRequest, proxy);
  } finally {
    await oneRequest.close();
    proxy.server.close();
  }
}

const bodyOf = (answer: SearchAnswer) => JSON.parse(answer.json.toString('utf8')) as Record<string, unknown>;
const hitsOf = (answer: SearchAnswer) =>
  (bodyOf(answer) as { hits: { hits?: { _source: unknown }[] } }).hits.hits ?? [];

describe('SearchTransport', () => {
  beforeAll(async () => {
    await client.indices.create({ index, body: { settings: { number_of_shards: 1, number_of_replicas: 0 } } });
    await client.index({ index, id: 'a', routing: 'r1', body: { name: 'first' } });
    await client.index({ index, id: 'b', routing: 'r1', body: { name: 'second' }, refresh: true });
  });
  afterAll(async () => {
    await client.indices.delete({ index }).catch(() => undefined);
    await transport.close();
    await client.close();
  });

  it('answers the status and the answer as bytes, without the per-hit fields it filters out', async () => {
    const answer = await transport.search(index, 'r1', { query: { term: { _id: 'a' } } });
    expect(answer.statusCode).toBe(200);
    const body = bodyOf(answer) as { hits: { hits: Record<string, unknown>[] }; _shards?: unknown };
    expect(body.hits.hits).toEqual([{ _source: { name: 'first' } }]);
    expect(body._shards).toBeUndefined();
  });

  it('hands back an engine error as its status and body (a missing index is a 404)', async () => {
    const missing = await transport.search(`${index}_missing`, 'r1', { query: { match_all: {} } });
    expect(missing.statusCode).toBe(404);
    expect((bodyOf(missing) as { error: { type: string } }).error.type).toBe('index_not_found_exception');
    const invalid = await transport.search(index, 'r1', { query: { no_such_query: {} } });
    expect(invalid.statusCode).toBe(400);
  });

  it('answers many searches at once, each with its own body', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => transport.search(index, 'r1', { size: i % 3, query: { match_all: {} } })),
    );
    // filter_path leaves an empty hits.hits out of the answer (search-service puts it back).
    expect(answers.map((a) => hitsOf(a).length)).toEqual(Array.from({ length: 20 }, (_, i) => i % 3));
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
  });

  it('sends the searches that wait for a request together as one _msearch, each keeping its own answer and status', () =>
    throughProxy(async (oneRequest, proxy) => {
      const byName = (name: string) => ({ query: { term: { 'name.keyword': name } } });
      const [alone, first, second, missing, none] = await Promise.all([
        oneRequest.search(index, 'r1', byName('first')),
        oneRequest.search(index, 'r1', byName('first')),
        oneRequest.search(index, 'r1', byName('second')),
        oneRequest.search(`${index}_missing`, 'r1', byName('first')),
        oneRequest.search(index, 'r1', byName('third')),
      ]);
      // The first found the request free and went alone; the other four waited for it and left together.
      expect(proxy.paths.map((path) => path.split('?')[0])).toEqual([`/${index}/_search`, '/_msearch']);
      expect(proxy.paths[1]).toContain('max_concurrent_searches=4');
      expect(hitsOf(alone!)).toEqual([{ _source: { name: 'first' } }]);
      expect(hitsOf(first!)).toEqual([{ _source: { name: 'first' } }]);
      expect(hitsOf(second!)).toEqual([{ _source: { name: 'second' } }]);
      expect([alone, first, second, none].map((a) => a!.statusCode)).toEqual([200, 200, 200, 200]);
      expect(hitsOf(none!)).toEqual([]);
      // A batched answer is a slice of the _msearch answer: a lone one's members, and the status it was read from.
      const { status, ...batched } = bodyOf(first!);
      expect(status).toBe(200);
      expect(Object.keys(batched).sort()).toEqual(Object.keys(bodyOf(alone!)).sort());
      expect(missing!.statusCode).toBe(404);
      expect((bodyOf(missing!) as { error: { type: string } }).error.type).toBe('index_not_found_exception');
    }));

  it('answers each search of a batch the engine refuses whole (a body it cannot parse) on its own', () =>
    throughProxy(async (oneRequest, proxy) => {
      const answers = await Promise.all([
        oneRequest.search(index, 'r1', { query: { match_all: {} } }),
        oneRequest.search(index, 'r1', { query: { term: { _id: 'b' } } }),
        oneRequest.search(index, 'r1', { query: { no_such_query: {} } }),
        oneRequest.search(index, 'r1', { query: { term: { _id: 'a' } } }),
      ]);
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 400, 200]);
      expect(hitsOf(answers[1]!)).toEqual([{ _source: { name: 'second' } }]);
      expect(hitsOf(answers[3]!)).toEqual([{ _source: { name: 'first' } }]);
      expect((bodyOf(answers[2]!) as { error: { type: string } }).error.type).toBe('parsing_exception');
      // The refused batch, then its three searches one by one.
      expect(proxy.paths.map((path) => path.split('?')[0])).toEqual([
        `/${index}/_search`,
        '/_msearch',
        ...Array(3).fill(`/${index}/_search`),
      ]);
    }));

  it('sends a waiting search anyway once it has waited maxWaitMs for a slow search to come back', () =>
    throughProxy(
      async (oneRequest, proxy) => {
        const slow = oneRequest.search(index, 'r1', { query: { term: { _id: 'a' } } });
        let slowAnswered = false;
        void slow.then(() => {
          slowAnswered = true;
        });
        // The slow search is held until released below: the quick one can only be answered by not waiting for it.
        const quick = await oneRequest.search(index, 'r1', { query: { term: { _id: 'b' } } });
        expect(slowAnswered).toBe(false);
        proxy.releaseFirst();
        expect(hitsOf(quick)).toEqual([{ _source: { name: 'second' } }]);
        expect(hitsOf(await slow)).toEqual([{ _source: { name: 'first' } }]);
        expect(proxy.paths.map((path) => path.split('?')[0])).toEqual([`/${index}/_search`, `/${index}/_search`]);
      },
      { holdFirst: true, maxWaitMs: 20 },
    ));

  it('sends the lookups that wait for a request together as one _mget, each keeping its own documents', () =>
    throughProxy(async (oneRequest, proxy) => {
      const lookUp = (ids: string[], on = index) => oneRequest.lookup(on, 'r1', ids, ['name']);
      const [alone, both, missingDoc, reversed, missingIndex] = await Promise.all([
        lookUp(['a']),
        lookUp(['a', 'b']),
        lookUp(['nope']),
        lookUp(['b', 'nope', 'a']),
        lookUp(['a'], `${index}_missing`),
      ]);
      // The first found the request free and went alone; the other four waited for it and left together.
      expect(proxy.paths.map((path) => path.split('?')[0])).toEqual([`/${index}/_mget`, '/_mget']);
      expect(proxy.paths[1]).toContain('realtime=false');
      const sources = (answer: SearchAnswer | undefined) =>
        (bodyOf(answer!).docs as { _source?: unknown }[]).flatMap((doc) => (doc._source ? [doc._source] : []));
      expect(sources(alone)).toEqual([{ name: 'first' }]);
      expect(sources(both)).toEqual([{ name: 'first' }, { name: 'second' }]);
      expect(sources(missingDoc)).toEqual([]);
      expect(sources(reversed)).toEqual([{ name: 'second' }, { name: 'first' }]);
      expect(bodyOf(reversed!).docs).toHaveLength(3);
      // A document of an index that does not exist is an error of that lookup's alone.
      expect(missingIndex!.statusCode).toBe(200);
      expect(bodyOf(missingIndex!).docs).toEqual([
        { error: expect.objectContaining({ type: 'index_not_found_exception' }) },
      ]);
      // Each carries its time at the engine (an _mget has no `took`): the four that left together share theirs.
      expect(alone!.engineMs).toBeGreaterThan(0);
      expect(new Set([both, missingDoc, reversed, missingIndex].map((answer) => answer!.engineMs)).size).toBe(1);
      expect(both!.engineMs).toBeGreaterThan(0);
    }));

  it('rejects when the node cannot be reached, alone or batched', async () => {
    const nowhere = new SearchTransport('http://127.0.0.1:1', { requests: 1 });
    const searches = Array.from({ length: 3 }, () => nowhere.search(index, 'r1', {}));
    const lookups = Array.from({ length: 3 }, () => nowhere.lookup(index, 'r1', ['a'], ['name']));
    await Promise.all([...searches, ...lookups].map((sent) => expect(sent).rejects.toThrow()));
    await nowhere.close();
  });
  it('sends a search to the next node when one cannot be reached, or drops the connection', async () => {
    // A node that is down (nothing listens), and one that closes every connection without answering.
    const dropping = createServer((incoming) => incoming.socket.destroy());
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}`;
    await new Promise((resolve) => dead.close(resolve));
    const droppingUrl = `http://127.0.0.1:${(dropping.address() as AddressInfo).port}`;
    const spread = new SearchTransport(`${deadUrl}, ${droppingUrl},${url}`, { requests: 8 });
    try {
      for (let i = 0; i < 6; i++) {
        const answer = await spread.search(index, 'r1', { query: { term: { _id: 'a' } } });
        expect(answer.statusCode).toBe(200);
        expect(hitsOf(answer)).toEqual([{ _source: { name: 'first' } }]);
        const found = await spread.lookup(index, 'r1', ['b'], ['name']);
        expect(found.statusCode).toBe(200);
      }
    } finally {
      await spread.close();
      dropping.close();
    }
  });
});
