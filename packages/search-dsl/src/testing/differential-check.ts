import { expect } from 'vitest';
import { referenceSearch } from '../oracle/reference-search.ts';
import { parseSearchParams } from '../params/parse-search-params.ts';
import { validateSearch } from '../validate/validate-search.ts';
import type { TestIndex } from './opensearch-harness.ts';
import { TEST_SCHEMA } from './test-schema.ts';

/** One differential query (tests only): filter, sort, page size and optional projection. */
export type DiffQuery = {
  filter?: Record<string, unknown>;
  sort: Record<string, string>[];
  pageSize: number;
  fields?: string[];
};

let runId = 0;

function paramsOf(q: DiffQuery) {
  const fields = q.fields && q.fields.length > 0 ? ['id', ...q.fields] : undefined;
  return { query: { ...(q.filter ? { filter: q.filter } : {}), sort: q.sort }, ...(fields ? { fields } : {}) };
}

/** Pages through the engine's answer with cursors; no page may be short before the last. */
async function pageThrough(ix: TestIndex, connectorId: string, q: DiffQuery) {
  const keys: string[] = [];
  const data: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 200; page++) {
    const page_ = await ix.search({ ...paramsOf(q), limit: q.pageSize, ...(cursor ? { cursor } : {}) }, connectorId);
    expect(page_.data.length).toBeLessThanOrEqual(q.pageSize);
    for (const record of page_.data) {
      keys.push(String(record.id));
      data.push(record);
    }
    if (!page_.meta.has_more) return { keys, data };
    expect(page_.data.length).toBe(q.pageSize);
    expect(page_.meta.cursor).toBeTypeOf('string');
    cursor = page_.meta.cursor ?? undefined;
  }
  throw new Error('paging did not end');
}

/**
 * Indexes `records` under a fresh connector id of the shared index, then checks that every query, paged through
 * OpenSearch, equals the reference evaluator's answer: same records, same order, same projected values.
 */
export async function checkAgainstReference(ix: TestIndex, records: Record<string, unknown>[], queries: DiffQuery[]) {
  const connectorId = `diff-${process.pid}-${runId++}`;
  await ix.load(records, connectorId);
  for (const q of queries) {
    const search = validateSearch(parseSearchParams(paramsOf(q)), { searchable: TEST_SCHEMA });
    const expected = referenceSearch(records, { searchable: TEST_SCHEMA, recordKey: 'id', connectorId }, search);
    const got = await pageThrough(ix, connectorId, q);
    expect(got.keys).toEqual(expected.map((h) => h.key));
    expect(got.data).toEqual(expected.map((h) => h.record));
  }
}
