/**
 * `node test/bench/sql-parse-bench.ts`: the longest the API's SQL planning (pre-scan, parse, bind) takes on the
 * shapes that make an Earley parser slow, each grown to the largest text the pre-scan accepts
 * (SQL_TEXT_LIMITS, docs/sql.md). Prints each shape's size and its median and worst time over BENCH_RUNS texts
 * (each different, so the plan cache never answers). Goal: every median under 50 ms.
 *
 *   BENCH_RUNS=15   texts per shape
 */
import { isSqlQueryError, planSql, SQL_TEXT_LIMITS } from '@conduit/search-dsl';
import { ms, percentile, table, verdict } from './stats.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const GOAL_MS = 50;

const tables = {
  invoices: {
    recordKey: 'id',
    searchable: {
      id: { type: 'string', nullable: false },
      total: { type: 'number', nullable: true },
      status: { type: 'string', nullable: true },
    },
  },
} as const;

const list = (n: number, item: (i: number) => string, sep = ', ') =>
  Array.from({ length: n }, (_, i) => item(i)).join(sep);

/** Each shape as a text of n repetitions; `seed` makes every text different. */
const SHAPES: Record<string, (n: number, seed: number) => string> = {
  'IN numbers': (n, s) => `SELECT * FROM invoices WHERE total IN (${list(n, (i) => String(i + s))})`,
  'IN strings': (n, s) => `SELECT * FROM invoices WHERE status IN (${list(n, (i) => `'v${i}-${s}'`)})`,
  'IN expressions': (n, s) => `SELECT * FROM invoices WHERE total IN (${list(n, (i) => `${i}+${s}`)})`,
  'SELECT list': (n, s) => `SELECT ${list(n, () => 'total')} FROM invoices LIMIT ${s}`,
  '+1 chain': (n, s) => `SELECT * FROM invoices WHERE total = ${s}${'+1'.repeat(n)}`,
  'CASE chain': (n, s) => `SELECT CASE ${'WHEN total = 1 THEN 1 '.repeat(n)}END FROM invoices LIMIT ${s}`,
  'OR chain': (n, s) => `SELECT * FROM invoices WHERE ${list(n, () => `total = ${s}`, ' OR ')}`,
  'AND of IN': (n, s) => `SELECT * FROM invoices WHERE ${list(n, () => `total IN (${s}, 2, 3)`, ' AND ')}`,
  'NOT chain': (n, s) => `SELECT * FROM invoices WHERE ${'NOT '.repeat(n)}total = ${s}`,
  parentheses: (n, s) => `SELECT * FROM invoices WHERE ${'('.repeat(n)}total = ${s}${')'.repeat(n)}`,
  'nested calls': (n, s) => `SELECT ${'abs('.repeat(n)}${s}${')'.repeat(n)} FROM invoices`,
  'long string': (n, s) => `SELECT * FROM invoices WHERE status = '${'x'.repeat(n * 200)}${s}'`,
};

function plan(query: string): 'accepted' | 'refused by the pre-scan' | 'refused after parsing' {
  try {
    planSql({ query }, { tables, connectorId: 'c', cursorKey: 'bench' });
    return 'accepted';
  } catch (error) {
    if (!isSqlQueryError(error)) throw error;
    return /at most|nest at most/.test(error.message) && !/LIMIT|ORDER/.test(error.message)
      ? 'refused by the pre-scan'
      : 'refused after parsing';
  }
}

/** The largest n the pre-scan lets through (binary search). */
function largest(shape: (n: number, seed: number) => string): number {
  let low = 1;
  let high = 4096;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (plan(shape(mid, 1)) === 'refused by the pre-scan') high = mid - 1;
    else low = mid;
  }
  return low;
}

// Warm the parser and the JIT as a running API would be.
for (let i = 0; i < 50; i++) plan(`SELECT status, COUNT(*) FROM invoices WHERE total > ${i} GROUP BY status`);

const rows: string[][] = [];
let worst = 0;
for (const [name, shape] of Object.entries(SHAPES)) {
  const n = largest(shape);
  const times: number[] = [];
  let outcome = '';
  for (let run = 0; run < RUNS; run++) {
    const text = shape(n, 1000 + run);
    const started = performance.now();
    outcome = plan(text);
    times.push(performance.now() - started);
  }
  const median = percentile(
    times.sort((a, b) => a - b),
    0.5,
  );
  worst = Math.max(worst, median);
  const chars = shape(n, 1000).length;
  rows.push([name, String(n), String(chars), ms(median), ms(Math.max(...times)), outcome]);
}
console.log(`SQL_TEXT_LIMITS ${JSON.stringify(SQL_TEXT_LIMITS)}`);
console.log(table(['shape', 'n at the limit', 'chars', 'median', 'max', 'outcome'], rows));
console.log(`${verdict(worst <= GOAL_MS)}: the slowest shape's median ${ms(worst)} (goal <= ${GOAL_MS} ms)`);
