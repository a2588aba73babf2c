import { describe, expect, it } from 'vitest';
import { planSearch } from '../plan-search.ts';
import { TEST_SCHEMA } from '../testing/test-schema.ts';
import { readSearchPage } from './read-search-page.ts';
import { searchPageJson } from './search-page-json.ts';

const OPTIONS = { searchable: TEST_SCHEMA, recordKey: 'id', connectorId: 'c1', entity: 'things', cursorKey: 'k' };
const hit = (record: Record<string, unknown> | undefined, sort: unknown[]) => ({
  _index: 'things',
  _id: `c1:${String(record?.id)}`,
  _score: null,
  _source: record === undefined ? { _key: 'x' } : { _key: record.id, _record: record },
  sort,
});

/** The answer written from the bytes, read back; and the page readSearchPage makes of the same answer. */
function bothWays(answer: unknown, params: Record<string, unknown>) {
  const { page } = planSearch(params, OPTIONS);
  const written = JSON.parse(searchPageJson(Buffer.from(JSON.stringify(answer)), page, { synced_at: null }).toString());
  const parsed = readSearchPage(answer, page);
  return { written, expected: { data: parsed.data, meta: { ...parsed.meta, synced_at: null } } };
}

describe('searchPageJson', () => {
  it('writes the same page as readSearchPage: records, has_more, cursor, took_ms, total and the extra meta', () => {
    const answer = {
      took: 3,
      hits: {
        total: { value: 3, relation: 'eq' },
        hits: [
          hit({ id: 'a', name: 'Ann', tags: ['x', 'y'], address: { city: 'Oslo' } }, ['a']),
          hit({ id: 'b', name: null }, ['b']),
          hit({ id: 'c' }, ['c']),
        ],
      },
    };
    const { written, expected } = bothWays(answer, { query: {}, limit: 2 });
    expect(written).toEqual(expected);
    expect(written.data).toEqual([
      { id: 'a', name: 'Ann', tags: ['x', 'y'], address: { city: 'Oslo' } },
      { id: 'b', name: null },
    ]);
    expect(written.meta.cursor).toEqual(expect.any(String));
  });

  it('copies a record as the engine wrote it: an integer past 2^53 keeps its digits', () => {
    const { page } = planSearch({ query: {}, limit: 5, fields: ['id', 'count'] }, OPTIONS);
    const answer = Buffer.from(
      '{"took":1,"hits":{"hits":[{"_source":{"_key":"a","_record":{"id":"a","count":9007199254740993}},"sort":["a"]}]}}',
    );
    expect(searchPageJson(answer, page).toString()).toContain('{"id":"a","count":9007199254740993}');
  });

  it('drops what the engine keeps beyond the fields: a sort-only key, a top-level "a.b" key under field a', () => {
    const records = [
      { id: 'a', name: 'Ann', 'name.first': 'A', count: 5 },
      { id: 'b', count: 7 },
    ];
    const answer = { hits: { hits: records.map((record, i) => hit(record, [i, record.id])) } };
    const { written, expected } = bothWays(answer, {
      query: { sort: [{ count: 'asc' }] },
      limit: 1,
      fields: ['id', 'name'],
    });
    expect(written).toEqual(expected);
    expect(written.data).toEqual([{ id: 'a', name: 'Ann' }]);
  });

  it('copies a record of plain keys whole, and drops what no field names (an empty key) from one that is not', () => {
    const records = [
      { id: 'a', name: 'Ann', count: 1 },
      { id: 'b', '': 'nameless', name: 'Bo' },
    ];
    const answer = { hits: { hits: records.map((record) => hit(record, [record.id])) } };
    const { written, expected } = bothWays(answer, { query: {}, limit: 5 });
    expect(written).toEqual(expected);
    expect(written.data).toEqual([
      { id: 'a', name: 'Ann', count: 1 },
      { id: 'b', name: 'Bo' },
    ]);
  });

  it('reads keys written with escapes', () => {
    const answer = Buffer.from(
      '{"hits":{"hits":[{"_source":{"_record":{"\\u0069d":"a","na\\"me":1,"name":"\\"q\\\\"}},"sort":["a"]}]}}',
    );
    const { page } = planSearch({ query: {}, limit: 5, fields: ['id', 'name'] }, OPTIONS);
    expect(JSON.parse(searchPageJson(answer, page).toString()).data).toEqual([{ id: 'a', name: '"q\\' }]);
  });

  it('answers a hit without a record as an empty one, and an answer without hits as an empty page', () => {
    const recordless = bothWays({ hits: { hits: [hit(undefined, ['x'])] } }, { query: {}, limit: 5 });
    expect(recordless.written).toEqual(recordless.expected);
    expect(recordless.written.data).toEqual([{}]);
    for (const answer of [{ took: 1 }, { took: 1, hits: { total: { value: 0, relation: 'eq' } } }]) {
      const { written, expected } = bothWays(answer, { query: {}, limit: 5 });
      expect(written).toEqual(expected);
      expect(written.data).toEqual([]);
    }
  });

  it('ignores members it does not read, such as a batched answer’s status, and whitespace', () => {
    const { page } = planSearch({ query: {}, limit: 5, fields: ['id'] }, OPTIONS);
    const answer = Buffer.from(
      ' {\n "took" : 2 ,"hits":{ "hits" : [ {"_source":{"_record":{"id":"a"}}} ] } , "status":200 }',
    );
    expect(JSON.parse(searchPageJson(answer, page).toString())).toEqual({
      data: [{ id: 'a' }],
      meta: { has_more: false, cursor: null, took_ms: 2, total: { value: 1, exact: true } },
    });
  });

  it('keeps the int64 cursor exact from the record of the last hit shown', () => {
    const records = [
      { id: 'a', count: '9007199254740993' },
      { id: 'b', count: 1 },
    ];
    const answer = { hits: { hits: records.map((record) => hit(record, [9007199254740992, record.id])) } };
    const params = { query: { sort: [{ count: 'asc' }] }, limit: 1, fields: ['id'] };
    const { written, expected } = bothWays(answer, params);
    expect(written).toEqual(expected);
    const next = planSearch({ ...params, cursor: written.meta.cursor }, OPTIONS);
    expect(next.body.search_after).toEqual(['9007199254740993', 'a']);
  });

  it('reads pages it cannot copy as readSearchPage does: a dotted field is nested, aggregations are read', () => {
    const dotted = { hits: { hits: [hit({ id: 'a', address: { city: 'Oslo', zip: '0150' } }, ['a'])] } };
    const nested = bothWays(dotted, { query: {}, limit: 5, fields: ['id', 'address.city'] });
    expect(nested.written).toEqual(nested.expected);
    expect(nested.written.data).toEqual([{ id: 'a', address: { city: 'Oslo' } }]);
    const counted = { hits: { hits: [] }, aggregations: { a0: { buckets: [{ key: 'x', doc_count: 2 }] } } };
    const aggregated = bothWays(counted, { query: {}, limit: 0, aggregate: { n: { count_by: 'name' } } });
    expect(aggregated.written).toEqual(aggregated.expected);
  });

  it('fails on an error answer as readSearchPage does', () => {
    const { page } = planSearch(
      { query: {}, aggregate: { h: { histogram: 'created_at', interval: 'hour' } } },
      OPTIONS,
    );
    const error = {
      error: { type: 'search_phase_execution_exception', caused_by: { type: 'too_many_buckets_exception' } },
    };
    expect(() => searchPageJson(Buffer.from(JSON.stringify(error)), page)).toThrow(
      expect.objectContaining({ code: 'invalid_filter' }),
    );
    const { page: plain } = planSearch({ query: {}, limit: 5 }, OPTIONS);
    expect(() => searchPageJson(Buffer.from('{"error":{"type":"x"}}'), plain)).toThrow(
      /search engine answered an error/,
    );
    expect(() => searchPageJson(Buffer.from('<html>'), plain)).toThrow(/malformed JSON/);
  });
});
