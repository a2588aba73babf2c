import { SEARCH_BUDGET } from '../validate/search-cost.ts';
import { operandType } from './bind-groups.ts';
import { aggNodes, compileGroups, orderedByKeys } from './compile-groups.ts';
import { type GroupRow, holds, sortGroups } from './group-values.ts';
import { emptyGroup, parseEngineJson, readGroups } from './read-groups.ts';
import type { SqlEngine, SqlPage, SqlPlan } from './run-sql.ts';
import { encodeSqlCursor } from './sql-cursor.ts';
import { SqlQueryError } from './sql-error.ts';
import type { GroupsQuery } from './sql-tree.ts';

/**
 * What one SQL request may spend in the engine (docs/sql.md, "Budget"). A GROUP BY reads its groups in composite
 * batches, each a search that runs the whole WHERE again, so a request pays for every batch it reads, not for one:
 * past either bound it reads no further batch and answers with the groups it has and a cursor.
 */
export type SqlBudget = {
  /** The search language's cost units (docs/search-cost.md) one request may spend, as a search may. */
  readonly units: number;
  /** Wall time of the request's engine calls, in ms. */
  readonly engineMs: number;
};

export const SQL_BUDGET: SqlBudget = Object.freeze({ units: SEARCH_BUDGET.maxCost, engineMs: 5000 });

/** Groups read before ORDER BY an aggregate gives up (each page re-reads them all). */
const MAX_ORDERED_GROUPS = 100_000;
/** Composite batch of a full read (its aggregates' buckets stay under the engine's search.max_buckets). */
const SCAN_BATCH = 2000;

/**
 * A batch's cost: its WHERE, one unit per aggregate (as search prices a metric) and one for the batch itself.
 * HAVING is checked here, not in the engine: a `bucket_selector` needs a script, and the engine runs without a
 * scripting module (docs/sql.md); a HAVING query reads its groups in the largest batches instead.
 */
function batchCost(query: GroupsQuery): number {
  return 1 + query.cost + aggNodes(query).length;
}

/** Runs a grouping plan: composite batches until the page is full, the groups end, or the budget is spent. */
export async function runGroups(
  plan: SqlPlan,
  query: GroupsQuery,
  engine: SqlEngine,
  budget: SqlBudget = SQL_BUDGET,
): Promise<SqlPage> {
  const columns = query.columns.map(({ operand: _, ...c }) => c);
  const rowOf = (g: GroupRow) =>
    Object.fromEntries(
      query.columns.map((c) => [
        c.name,
        c.operand.kind === 'key'
          ? g.keys[c.operand.index]
          : c.operand.kind === 'measure'
            ? g.measures[c.operand.index]
            : null,
      ]),
    );
  const passes = (g: GroupRow) => !query.having || holds(query.having, g);
  const started = performance.now();
  const cost = batchCost(query);
  const batches = Math.max(1, Math.floor(budget.units / cost));
  let read = 0;
  let took = 0;
  /** Whether another batch would go over the request's budget. */
  const spent = () => read >= batches || performance.now() - started >= budget.engineMs;
  const fetch = async (size: number, after: Readonly<Record<string, unknown>> | undefined) => {
    read++;
    const answer = await engine.search(query.entity, compileGroups(query, plan.options.connectorId, { size, after }));
    if (answer.statusCode === 404) {
      return {
        took: 0,
        groups: query.keys.length === 0 ? [{ after: {}, row: emptyGroup(query) }] : [],
        afterKey: undefined,
      };
    }
    const groups = readGroups(parseEngineJson(answer.json), query, size);
    took += groups.took;
    return groups;
  };

  if (query.keys.length === 0 || !orderedByKeys(query)) {
    // Every group is read, kept if HAVING holds, sorted, and paged by offset.
    const all: GroupRow[] = [];
    let after: Readonly<Record<string, unknown>> | undefined;
    do {
      const answer = await fetch(SCAN_BATCH, after);
      for (const g of answer.groups) if (passes(g.row)) all.push(g.row);
      after = answer.afterKey;
      if (all.length > MAX_ORDERED_GROUPS || (after && spent())) throw tooManyGroups(cost, batches, budget);
    } while (after);
    const sorted = sortGroups(all, query.order, (op) => operandType(op, query.keys, query.measures));
    const end = query.limit === undefined ? sorted.length : Math.min(sorted.length, query.limit);
    const offset = plan.state?.k === 'offset' ? plan.state.offset : 0;
    const slice = sorted.slice(offset, Math.min(end, offset + plan.pageLimit));
    const next = offset + slice.length;
    const has_more = next < end;
    return {
      data: slice.map(rowOf),
      meta: {
        columns,
        has_more,
        cursor: has_more ? encodeSqlCursor({ k: 'offset', offset: next }, plan.binding, plan.options.cursorKey) : null,
        took_ms: took,
        total: { value: end, exact: true },
      },
    };
  }

  // Ordered by the keys: composite batches from the cursor's key until the page is full and one more group passes,
  // the groups end, or the budget is spent; the cursor resumes after the last group looked at.
  const emitted = plan.state?.k === 'groups' ? plan.state.emitted : 0;
  let after: Readonly<Record<string, unknown>> | undefined = plan.state?.k === 'groups' ? plan.state.after : undefined;
  const rows: Record<string, unknown>[] = [];
  let last: Readonly<Record<string, unknown>> | undefined;
  let has_more = false;
  let partial = false;
  // With HAVING, most groups read may be rejected: the largest batches, so that the budget goes further.
  const batch = query.having ? SCAN_BATCH : Math.min(Math.max(plan.pageLimit + 1, 10), 1000);
  if (plan.pageLimit > 0) {
    scan: for (;;) {
      const answer = await fetch(batch, after);
      for (const g of answer.groups) {
        if (passes(g.row)) {
          if (rows.length === plan.pageLimit) {
            has_more = true;
            break scan;
          }
          rows.push(rowOf(g.row));
        }
        last = g.after;
      }
      if (!answer.afterKey) break;
      after = answer.afterKey;
      if (spent()) {
        has_more = true;
        partial = rows.length < plan.pageLimit;
        break;
      }
    }
  }
  const reachedLimit = query.limit !== undefined && emitted + rows.length >= query.limit;
  has_more = has_more && !reachedLimit;
  return {
    data: rows,
    meta: {
      columns,
      has_more,
      cursor:
        has_more && last
          ? encodeSqlCursor(
              { k: 'groups', after: last as Record<string, string>, emitted: emitted + rows.length },
              plan.binding,
              plan.options.cursorKey,
            )
          : null,
      took_ms: took,
      ...(partial && has_more ? { partial: true as const } : {}),
    },
  };
}

function tooManyGroups(cost: number, batches: number, budget: SqlBudget): SqlQueryError {
  return new SqlQueryError('query_too_costly', [
    {
      line: 1,
      column: 1,
      message:
        `ORDER BY an aggregate reads every group before the first row, and this query's groups need more than ` +
        `${batches} batches of ${SCAN_BATCH} (${cost} units each, a budget of ${budget.units} units and ` +
        `${budget.engineMs} ms of engine time per request; at most ${MAX_ORDERED_GROUPS} groups): narrow WHERE or ` +
        'HAVING, or order by the GROUP BY columns (which pages through any number of groups by cursor)',
    },
  ]);
}
