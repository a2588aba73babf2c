import { deepStrictEqual } from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { FieldMap } from '@conduit/connectors';
import { Client } from '@opensearch-project/opensearch';
import { indexDocumentId, toIndexDocument } from '../mapping/index-document.ts';
import { buildIndexMapping } from '../mapping/index-mapping.ts';
import { planSearch } from '../plan-search.ts';
import { readSearchPage, type SearchPage } from '../results/read-search-page.ts';
import { searchPageJson } from '../results/search-page-json.ts';

/**
 * Test-only helpers for `*.int.test.ts`: a client, a throw-away index per test file, and a search runner. Every
 * search the runner answers is also written from the engine's bytes (`searchPageJson`, the API's way) and must
 * come out as the same page, or the same error: so each search test is a differential test of the two readers.
 */
export const OPENSEARCH_URL = (process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200').split(',')[0]!.trim();

export type TestIndex = {
  readonly client: Client;
  readonly index: string;
  readonly searchable: FieldMap;
  readonly recordKey: string;
  load(records: readonly Record<string, unknown>[], connectorId: string): Promise<void>;
  clear(): Promise<void>;
  search(params: unknown, connectorId: string, entity?: string): Promise<SearchPage>;
  drop(): Promise<void>;
};

export const CURSOR_KEY = 'test-cursor-key';

export async function createTestIndex(prefix: string, searchable: FieldMap, recordKey: string): Promise<TestIndex> {
  const client = new Client({ node: OPENSEARCH_URL });
  const index = `${prefix}-${randomBytes(6).toString('hex')}`;
  const { settings, mappings } = buildIndexMapping(searchable, recordKey);
  await client.indices.create({
    index,
    body: { settings: { ...settings, number_of_shards: 1, number_of_replicas: 0 }, mappings },
  });
  return {
    client,
    index,
    searchable,
    recordKey,
    async load(records, connectorId) {
      if (records.length === 0) return;
      const body = records.flatMap((record) => {
        const doc = toIndexDocument(record, { searchable, recordKey, connectorId });
        return [{ index: { _index: index, _id: indexDocumentId(connectorId, String(doc._key)) } }, doc];
      });
      const res = await client.bulk({ body, refresh: true });
      if (res.body.errors) {
        const failed = res.body.items.find((i) => i.index?.error);
        throw new Error(`bulk failed: ${JSON.stringify(failed)}`);
      }
    },
    async clear() {
      await client.deleteByQuery({ index, body: { query: { match_all: {} } }, refresh: true, conflicts: 'proceed' });
    },
    async search(params, connectorId, entity = 'things') {
      const plan = planSearch(params, { searchable, recordKey, connectorId, entity, cursorKey: CURSOR_KEY });
      const answer = await fetch(`${OPENSEARCH_URL}/${index}/_search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(plan.body),
      });
      const bytes = Buffer.from(await answer.arrayBuffer());
      const parsed = attempt(() => readSearchPage(JSON.parse(bytes.toString('utf8')), plan.page));
      const written = attempt(() => JSON.parse(searchPageJson(bytes, plan.page).toString('utf8')) as SearchPage);
      if ('error' in parsed) {
        deepStrictEqual(written, parsed, 'searchPageJson must fail as readSearchPage does');
        throw parsed.error;
      }
      deepStrictEqual(written, { page: { data: parsed.page.data, meta: parsed.page.meta } }, 'searchPageJson');
      return parsed.page;
    },
    async drop() {
      await client.indices.delete({ index, ignore_unavailable: true });
      await client.close();
    },
  };
}

function attempt(read: () => SearchPage): { page: SearchPage } | { error: unknown } {
  try {
    return { page: read() };
  } catch (error) {
    return { error };
  }
}
