import { afterAll, beforeAll, describe, expect } from 'vitest';
import { referenceGroups, referenceRows } from './oracle/reference-sql.ts';
import { parseSearchParams } from './params/parse-search-params.ts';
import type { SqlPage } from './sql/run-sql.ts';
import { createTestIndex, type TestIndex } from './testing/opensearch-harness.ts';
import { itOnRandomRecordSets } from './testing/record-set-property.ts';
import { caseToSql, type SqlCase, sqlCaseArb } from './testing/sql-arbitraries.ts';
import { sqlOver } from './testing/sql-harness.ts';
import { TEST_SCHEMA } from './testing/test-schema.ts';
import { overBudget, searchCost } from './validate/search-cost.ts';
import { validateSearch } from './validate/validate-search.ts';

/**
 * Differential test of SQL: random records and random queries (the search differential's filters and sorts written
 * as SQL, with GROUP BY, aggregates, HAVING, ORDER BY and LIMIT), answered by the SQL front end over OpenSearch,
 * paged with cursors at random page sizes, must equal the reference evaluator's rows (oracle/reference-sql.ts, which
 * shares no code with the SQL compiler) and totals; row queries must also return what `search` returns for the same
 * filter, sort and fields. CI runs 50 cases; `SQL_DIFF_RUNS=500` runs more.
 */
const RUNS = Number(process.env.SQL_DIFF_RUNS ?? 50);
let ix: TestIndex;
let sql: ReturnType<typeof sqlOver>;
let run = 0;

beforeAll(async () => {
  ix = await createTestIndex('search-dsl-sql-diff', TEST_SCHEMA, 'id');
  sql = sqlOver(ix);
});
afterAll(async () => {
  await ix?.drop();
});

async function pageThrough(query: string, pageSize: number, connectorId: string) {
  const rows: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  let first: SqlPage | undefined;
  for (let i = 0; i < 300; i++) {
    const page = await sql({ query, limit: pageSize, ...(cursor ? { cursor } : {}) }, connectorId);
    first ??= page;
    expect(page.data.length).toBeLessThanOrEqual(pageSize);
    rows.push(...page.data);
    if (!page.meta.has_more) return { rows, first };
    cursor = page.meta.cursor ?? undefined;
    expect(cursor).toBeTypeOf('string');
  }
  throw new Error('paging did not end');
}

/** Every search page of the same filter, sort and fields, as records. */
async function searchAll(c: Extract<SqlCase, { kind: 'rows' }>, connectorId: string) {
  const out: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 300; i++) {
    const page = await ix.search(
      {
        query: { ...(c.filter ? { filter: c.filter } : {}), sort: c.sort },
        ...(c.columns === '*' ? {} : { fields: [...c.columns] }),
        limit: 7,
        ...(cursor ? { cursor } : {}),
      },
      connectorId,
    );
    out.push(...page.data);
    if (!page.meta.has_more) return out;
    cursor = page.meta.cursor ?? undefined;
  }
  throw new Error('paging did not end');
}

async function check(recs: Record<string, unknown>[], cases: SqlCase[]) {
  const connectorId = `sql-diff-${process.pid}-${run++}`;
  await ix.load(recs, connectorId);
  for (const [n, c] of cases.entries()) {
    const query = caseToSql(c, n + run);
    const label = query;
    const filter = validateSearch(parseSearchParams({ query: c.filter ? { filter: c.filter } : {} }), {
      searchable: TEST_SCHEMA,
    }).filter;
    const got = await pageThrough(query, c.pageSize, connectorId);
    if (c.kind === 'rows') {
      const search = validateSearch(
        parseSearchParams({
          query: { ...(c.filter ? { filter: c.filter } : {}), sort: c.sort },
          ...(c.columns === '*' ? {} : { fields: [...c.columns] }),
        }),
        { searchable: TEST_SCHEMA },
      );
      const expected = referenceRows(recs, { searchable: TEST_SCHEMA, recordKey: 'id' }, search, c.columns, c.limit);
      expect(got.rows, label).toEqual(expected);
      expect(got.first.meta.total, label).toEqual({ value: expected.length, exact: true });
      // The same records as search answers for the equivalent params.
      const searched = (await searchAll(c, connectorId)).slice(0, c.limit);
      const asRows =
        c.columns === '*'
          ? searched
          : searched.map((r) => Object.fromEntries((c.columns as string[]).map((p) => [p, lookupPath(r, p) ?? null])));
      expect(got.rows, `${label} (vs search)`).toEqual(asRows);
    } else {
      const expected = referenceGroups(recs, TEST_SCHEMA, filter, c);
      expect(got.rows, label).toEqual(expected);
      if (got.first.meta.total) expect(got.first.meta.total, label).toEqual({ value: expected.length, exact: true });
    }
  }
}

function lookupPath(record: Record<string, unknown>, path: string): unknown {
  let at: unknown = record;
  for (const part of path.split('.'))
    at = at && typeof at === 'object' ? (at as Record<string, unknown>)[part] : undefined;
  return at;
}

/** Queries the API answers: a WHERE over the search cost budget is refused before the engine (plan-sql.test.ts). */
const affordableCaseArb = sqlCaseArb.filter(
  (c) => overBudget(searchCost({ query: c.filter === undefined ? {} : { filter: c.filter } })).length === 0,
);

describe('SQL agrees with the reference evaluator and with search', () => {
  itOnRandomRecordSets(RUNS, affordableCaseArb, check, { timeoutMs: 60 * 60_000 });
});
