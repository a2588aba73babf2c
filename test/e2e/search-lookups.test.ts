import type { Answer } from '@conduit/answer-cache';
import { type EntityCatalog, t } from '@conduit/connectors';
import { indexKindOf } from '@conduit/hosted-connectors';
import { planSearch, searchPageJson } from '@conduit/search-dsl';
import type { Client } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineClient } from '../harness/engine-client.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

// The search service and index store the API runs with, against the real engine; the entity is this test's own.
let platform: TestPlatform;
let deps: TestPlatform['api']['deps'];
let engine: Client;
// Cursors are signed with the API's key; none of these pages has a next one, so the plan's key does not matter.
const CURSOR_KEY = 'k'.repeat(32);

const things: EntityCatalog = {
  name: 'things',
  recordKey: 'id',
  record: { id: t.string(), name: t.string(), count: t.integer() },
  searchable: {
    id: t.string(),
    name: t.string(),
    count: t.integer(),
    address: { type: 'object', nullable: true, fields: { city: t.string() } },
  },
  actions: {},
  sync: { mode: 'full_refresh' },
};
type ConnectorRow = Parameters<TestPlatform['api']['deps']['search']['search']>[0];
const row = (id: string) => ({ id, organization_id: 'org-t', connector_type: 'Kind' }) as ConnectorRow;
/** The kind part of the index names: a kind the platform does not ship is named with its organization. */
const KIND = indexKindOf(row('conn-1'));
const LONG_KEY = 'x'.repeat(8192);
const KEYS = ['a', 'b', 'c', '\uFF5E', '\u{1F600}', 'É', LONG_KEY];

/** The page the `_search` of the same params gives, as the service answers when it does not look up. */
async function searchedPage(connectorId: string, params: Record<string, unknown>) {
  const plan = planSearch(params, {
    searchable: things.searchable!,
    recordKey: 'id',
    connectorId,
    entity: 'Kind/things',
    cursorKey: CURSOR_KEY,
  });
  const answer = await deps.copySearch.search(deps.indexes.alias(KIND, 'things'), connectorId, plan.body);
  return { plan, page: withoutTook(searchPageJson(answer.json, plan.page, { synced_at: null })) };
}

/** The page without what differs between two answers of the same copy: the engine's time, the feed cursor, the cache. */
function withoutTook(answer: Buffer | Answer) {
  const body = Buffer.isBuffer(answer) ? answer : bodyOf(answer);
  const page = JSON.parse(body.toString()) as { meta: Record<string, unknown> };
  expect(page.meta.took_ms).toEqual(expect.any(Number));
  delete page.meta.took_ms;
  delete page.meta.as_of;
  delete page.meta.cache;
  return page;
}

function bodyOf(answer: Answer): Buffer {
  if (answer.status !== 200) throw new Error(`answered ${answer.status}`);
  return answer.body;
}

/** Searches by keys, each answered by a lookup. */
const LOOKUPS: [string, Record<string, unknown>][] = [
  ['an eq found', { query: { filter: { eq: { id: 'b' } } }, limit: 10 }],
  ['an eq not found', { query: { filter: { eq: { id: 'zz' } } }, limit: 10 }],
  ['an in, duplicates and unknown keys among them', { query: { filter: { in: { id: ['c', 'zz', 'a', 'c'] } } } }],
  ['keys outside the basic plane, in byte order', { query: { filter: { in: { id: ['\u{1F600}', '\uFF5E', 'É'] } } } }],
  ['a key too long to match', { query: { filter: { in: { id: [LONG_KEY, 'a'] } } }, limit: 5 }],
  ['some fields', { query: { filter: { in: { id: ['a', 'b'] } } }, fields: ['name', 'id'] }],
  ['a field inside an object', { query: { filter: { in: { id: ['a', 'b'] } } }, fields: ['address.city'] }],
  ['exactly a page of keys', { query: { filter: { in: { id: ['a', 'b'] } } }, limit: 2 }],
];

describe('search by record keys (a multi-get of their documents)', () => {
  let lookups = 0;
  let service: TestPlatform['api']['deps']['search'];

  beforeAll(async () => {
    // These records are written to the copy directly, never to its change feed: kept answers would not know of
    // them (answers kept are tested by answer-cache.test.ts).
    platform = await startTestPlatform({ worker: false, env: { ANSWER_CACHE: 'off' } });
    deps = platform.api.deps;
    engine = engineClient(deps.env);
    service = deps.search;
    const records = KEYS.map((id, i) => ({ id, name: `thing ${i}`, count: i, address: { city: `city ${i}` } }));
    await deps.copy.writeRecords(KIND, things, 'conn-1', 'run-1', records, { readAt: Date.now() });
    // Another connector's records under the same keys: never found by conn-1's lookups.
    await deps.copy.writeRecords(
      KIND,
      things,
      'conn-2',
      'run-1',
      records.map((r) => ({ ...r, name: 'other' })),
      { readAt: Date.now() },
    );
    await deps.indexes.refresh(KIND, 'things');
    const lookup = deps.copySearch.lookup.bind(deps.copySearch);
    deps.copySearch.lookup = (...args) => {
      lookups++;
      return lookup(...args);
    };
  });

  afterAll(async () => {
    await engine?.close();
    await platform?.close();
  });

  it.each(LOOKUPS)('answers %s with the page its _search gives', async (_, params) => {
    const { plan, page } = await searchedPage('conn-1', params);
    expect(plan.lookup).toBeDefined();
    const before = lookups;
    const answered = withoutTook(await service.search(row('conn-1'), things, params));
    expect(lookups).toBe(before + 1);
    expect(answered).toEqual(page);
  });

  it('answers lookups that went to the engine together each with the page its _search gives', async () => {
    // An API keeping one lookup request open to the engine: the lookups that arrive while it is out wait and
    // leave together as one _mget of all their documents.
    const oneRequest = await platform.secondApi({ OPENSEARCH_SEARCH_REQUESTS: 1 });
    try {
      const asked = [
        ...LOOKUPS.map(([, params]) => ({ connector: 'conn-1', params })),
        ...LOOKUPS.map(([, params]) => ({ connector: 'conn-2', params })),
      ];
      const together = await Promise.all(
        asked.map(async ({ connector, params }) =>
          withoutTook(await oneRequest.deps.search.search(row(connector), things, params)),
        ),
      );
      for (const [i, { connector, params }] of asked.entries()) {
        expect(together[i]).toEqual((await searchedPage(connector, params)).page);
      }
    } finally {
      await oneRequest.close();
    }
  });

  it('finds what a search finds for the same keys, and only the connector own records', async () => {
    const params = { query: { filter: { in: { id: KEYS } } }, limit: 100 };
    const answered = withoutTook(await service.search(row('conn-1'), things, params));
    expect((answered as unknown as { data: { name: string }[] }).data.map((r) => r.name)).not.toContain('other');
    expect(answered).toEqual((await searchedPage('conn-1', params)).page);
  });

  it('reads the copy a search reads: a record written but not yet refreshed is found by neither', async () => {
    const alias = deps.indexes.alias(KIND, 'things');
    await engine.indices.putSettings({ index: alias, body: { index: { refresh_interval: '-1' } } });
    try {
      await deps.copy.writeRecords(KIND, things, 'conn-1', 'run-2', [{ id: 'late', name: 'late' }], {
        readAt: Date.now(),
        refresh: false,
      });
      const params = { query: { filter: { in: { id: ['late', 'a'] } } } };
      const before = withoutTook(await service.search(row('conn-1'), things, params));
      expect(before).toEqual((await searchedPage('conn-1', params)).page);
      expect((before as unknown as { data: { id: string }[] }).data.map((r) => r.id)).toEqual(['a']);
      await deps.indexes.refresh(KIND, 'things');
      const after = withoutTook(await service.search(row('conn-1'), things, params));
      expect((after as unknown as { data: { id: string }[] }).data.map((r) => r.id)).toEqual(['a', 'late']);
    } finally {
      await engine.indices.putSettings({ index: alias, body: { index: { refresh_interval: '1s' } } });
    }
  });

  it('answers a search asked again from its kept plan as the first time, for its own connector only', async () => {
    const params = { query: { filter: { eq: { name: 'thing 1' } } }, limit: 10 };
    const first = withoutTook(await service.search(row('conn-1'), things, params));
    expect(first).toEqual((await searchedPage('conn-1', params)).page);
    expect(withoutTook(await service.search(row('conn-1'), things, structuredClone(params)))).toEqual(first);
    // The same params of another connector (whose records are all named `other`): its own plan, filtered by its id.
    const other = withoutTook(await service.search(row('conn-2'), things, params));
    expect(other).toEqual((await searchedPage('conn-2', params)).page);
    expect((other as unknown as { data: unknown[] }).data).toEqual([]);
    // A refused search keeps no plan: it is refused each time it is asked.
    const misspelt = { query: { filter: { eq: { nmae: 'thing 1' } } } };
    for (let i = 0; i < 2; i++) {
      await expect(service.search(row('conn-1'), things, misspelt)).rejects.toMatchObject({ code: 'invalid_filter' });
    }
  });

  it('answers an empty page before the first sync wrote an index', async () => {
    const nothing = await service.search({ ...row('conn-1'), connector_type: 'Unsynced' }, things, {
      query: { filter: { eq: { id: 'a' } } },
    });
    expect(JSON.parse(bodyOf(nothing).toString())).toEqual({
      data: [],
      meta: {
        has_more: false,
        cursor: null,
        took_ms: null,
        total: { value: 0, exact: true },
        synced_at: null,
        as_of: '0',
        cache: 'miss',
      },
    });
  });

  it('falls back to the search when the alias spans two indices (the engine cannot look up by id there)', async () => {
    const alias = deps.indexes.alias(KIND, 'things');
    const second = `${alias}__second`;
    // With the entity's mapping, as a second version of its index has: a bare index would fail the search's sort on
    // its shard, and searches refuse partial results.
    const current = Object.values((await engine.indices.get({ index: alias })).body)[0]!;
    await engine.indices.create({
      index: second,
      body: { settings: { analysis: current.settings?.index?.analysis }, mappings: current.mappings },
    });
    await engine.indices.updateAliases({ body: { actions: [{ add: { index: second, alias } }] } });
    try {
      const params = { query: { filter: { eq: { id: 'a' } } }, limit: 10 };
      const answered = withoutTook(await service.search(row('conn-1'), things, params));
      expect((answered as unknown as { data: { id: string }[] }).data.map((r) => r.id)).toEqual(['a']);
    } finally {
      await engine.indices.delete({ index: second });
    }
  });
});
