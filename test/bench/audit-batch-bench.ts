/**
 * `pnpm bench:audit-batch`: what a batch of audit entries (the group commit's INSERT when calls overlap) costs per
 * entry in CPU, as the writer sends it now (`AuditWriter`: the rows as one JSON parameter read by
 * `json_to_recordset`) against the statement it replaced (one array parameter per column through `unnest`, which pg
 * encodes element by element in JavaScript and Postgres parses as 14 arrays). Both insert the same rows into the
 * migrated `audit_entries`, on connections set like the writer's (synchronous_commit off), in interleaved rounds; CPU
 * from `process.cpuUsage` (this process: building and encoding the parameters, the pg client) and the backend's
 * `/proc/<pid>/stat`.
 *
 *   BENCH_BATCHES=4,32   rows per INSERT
 *   BENCH_ENTRIES=6400   entries per statement, batch size and round
 *   BENCH_ROUNDS=4       rounds; the statements' order alternates
 *
 * Needs the local Postgres. Informational; exit code 0 unless something crashed.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { AUDIT_ENTRY_COLUMNS, AuditWriter } from '@conduit/db';
import pg from 'pg';
import { dropDatabase, withDatabaseName } from '../harness/databases.ts';
import { createMigratedDatabase } from '../harness/migrated-template.ts';
import { testServices } from '../harness/services.ts';
import { backendPid, cpuOfWork } from './backend-cpu.ts';
import { fixed, table } from './stats.ts';

const BATCHES = (process.env.BENCH_BATCHES ?? '4,32').split(',').map(Number);
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 6400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);

const COLUMN_LIST = AUDIT_ENTRY_COLUMNS.map(([name]) => name).join(', ');
// The writer's batch statement before: one array per column.
const UNNEST_ENTRIES = `insert into audit_entries (${COLUMN_LIST})
  select coalesce(at, now()), ${AUDIT_ENTRY_COLUMNS.slice(1)
    .map(([name]) => name)
    .join(', ')}
  from unnest(${AUDIT_ENTRY_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})
    with ordinality as u(${COLUMN_LIST}, position)
  order by position`;

const services = await testServices();
const databaseUrl = withDatabaseName(services.databaseUrl, `conduit_bench_audit_${randomBytes(4).toString('hex')}`);
await createMigratedDatabase(databaseUrl);
const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();

// An entry as AuditLog makes it for a live execute call.
const params = JSON.stringify({ limit: 1, cursor: null, filters: { status: 'active' } });
let made = 0;
const row = () => ({
  at: null,
  organization_id: 'org-bench',
  client_id: 'client-bench',
  connector_id: '6f1c2a4e-1b7d-4c3e-9a8b-0d2e4f6a8c1e',
  source: 'api',
  action: 'execute.list',
  entity: 'customers',
  params,
  idempotency_key: null,
  status: 200,
  error_code: null,
  upstream_status: 200,
  latency_ms: 1.234,
  request_id: `req-${made++}`,
});
type Row = ReturnType<typeof row>;

const writer = new AuditWriter(databaseUrl, {
  synchronous_commit: 'off',
  application_name: 'audit-batch-bench-json',
});
const unnestClient = new pg.Client({
  connectionString: databaseUrl,
  options: '-c synchronous_commit=off -c application_name=audit-batch-bench-unnest',
});
await unnestClient.connect();
const statements: { name: string; application: string; insert: (rows: Row[]) => Promise<unknown> }[] = [
  {
    name: 'one array per column (unnest), before',
    application: 'audit-batch-bench-unnest',
    insert: (rows) =>
      unnestClient.query({
        name: 'unnest',
        text: UNNEST_ENTRIES,
        values: AUDIT_ENTRY_COLUMNS.map(([column]) => rows.map((r) => r[column] ?? null)),
      }),
  },
  {
    name: 'one JSON array (json_to_recordset), AuditWriter',
    application: 'audit-batch-bench-json',
    insert: (rows) => writer.insertEntries(rows, false),
  },
];
// Connect and prepare both before measuring.
for (const statement of statements) await statement.insert([row(), row()]);

const loadBefore = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
const lines: string[][] = [];
for (const batch of BATCHES) {
  const totals = new Map(statements.map((s) => [s.name, { ownMs: 0, backendMs: 0, entries: 0 }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const statement of round % 2 === 0 ? statements : [...statements].reverse()) {
      const pid = await backendPid(admin, statement.application);
      const used = await cpuOfWork(pid, async () => {
        for (let done = 0; done < ENTRIES; done += batch) await statement.insert(Array.from({ length: batch }, row));
      });
      const t = totals.get(statement.name)!;
      t.ownMs += used.ownMs;
      t.backendMs += used.backendMs;
      t.entries += Math.ceil(ENTRIES / batch) * batch;
    }
  }
  for (const statement of statements) {
    const t = totals.get(statement.name)!;
    lines.push([
      String(batch),
      statement.name,
      fixed(t.ownMs / t.entries, 4),
      fixed(t.backendMs / t.entries, 4),
      fixed((t.ownMs + t.backendMs) / t.entries, 4),
    ]);
  }
}
console.log(`audit entries in batches: ${ROUNDS} round(s) × ${ENTRIES} entries per statement and batch size`);
console.log(table(['rows per INSERT', 'statement', 'node CPU ms/entry', 'Postgres CPU ms/entry', 'sum'], lines));
console.log(
  `load average (1, 5, 15 min) before: ${loadBefore}; after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
await unnestClient.end();
await writer.close();
await admin.end();
await dropDatabase(databaseUrl);
