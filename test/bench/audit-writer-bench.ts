/**
 * `pnpm bench:audit-writer`: what one audit entry costs in CPU, the trail's writer alone (no HTTP, no upstream), so
 * that its parts can be compared side by side on a shared machine. This process records entries through `AuditLog`
 * and `AuditWriter` as the API does (one row per call; here with synchronous_commit off, so the variants differ only in their tables) into tables that
 * differ only in what Postgres does per row, in interleaved rounds; it reports the CPU per entry of this process
 * (the API's share: building the row, serializing it, the pg client) and of the writer's Postgres backend (read from
 * /proc), at concurrency 1 (one entry per INSERT) and 32 (batched), and the round trip of a bare prepared
 * `select` on the same kind of connection as the floor.
 *
 *   BENCH_ENTRIES=2000   entries per variant, concurrency and round
 *   BENCH_ROUNDS=3       rounds; the variants' order alternates
 *   BENCH_IDLE_MS=1      also at concurrency 1 with this idle wait before each entry (0: skip), as in the API with
 *                        one call in flight, where this process and the backend sleep between entries; the wait's
 *                        own cost (a side that only waits) is subtracted
 *
 * Needs the local Postgres. Informational; exit code 0 unless something crashed.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { AuditWriter } from '@conduit/db';
import { AuditLog, redactForAudit } from '@conduit/trusted-calls';
import pg from 'pg';
import { dropDatabase, withDatabaseName } from '../harness/databases.ts';
import { createMigratedDatabase } from '../harness/migrated-template.ts';
import { testServices } from '../harness/services.ts';
import { backendPid, cpuOfWork } from './backend-cpu.ts';
import { fixed, table } from './stats.ts';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 1);

/** Each variant is a schema holding its own `audit_entries`, set up from the migrated one. */
const VARIANTS: Record<string, string[]> = {
  // As migrated: the primary key (organization_id, id), a btree index and a BRIN one, the append-only triggers.
  migrated: [],
  // The triggers fire only on UPDATE, DELETE and TRUNCATE: an INSERT should cost the same without them.
  'no triggers': ['create table audit_entries (like public.audit_entries including all)'],
  // As before migration 0023: a btree on `at` (now a BRIN index, nearly free to maintain as `at` grows).
  'at: btree': [
    'create table audit_entries (like public.audit_entries including all)',
    'drop index audit_entries_at_idx',
    'create index on audit_entries (at)',
  ],
  // As before migration 0025: the primary key on id alone and a separate (organization_id, id desc) index.
  'key on id (before 0025)': [
    'create table audit_entries (like public.audit_entries including all)',
    'alter table audit_entries drop constraint audit_entries_pkey',
    'alter table audit_entries add primary key (id)',
    'create index on audit_entries (organization_id, id desc)',
  ],
  // The floor: the primary key alone.
  'primary key only': [
    'create table audit_entries (like public.audit_entries including all)',
    'drop index audit_entries_at_idx',
    'drop index audit_entries_organization_id_connector_id_id_idx',
  ],
};

const services = await testServices();
const databaseUrl = withDatabaseName(services.databaseUrl, `conduit_bench_audit_${randomBytes(4).toString('hex')}`);
await createMigratedDatabase(databaseUrl);

const setup = new pg.Client({ connectionString: databaseUrl });
await setup.connect();
const schemaOf = (variant: string) => (variant === 'migrated' ? 'public' : `v_${variant.replaceAll(/\W/g, '_')}`);
for (const [variant, statements] of Object.entries(VARIANTS)) {
  if (statements.length === 0) continue;
  await setup.query(`create schema ${schemaOf(variant)}`);
  await setup.query(`set search_path = ${schemaOf(variant)}, public`);
  for (const statement of statements) await setup.query(statement);
  await setup.query('set search_path = public');
}

const writers = Object.keys(VARIANTS).map((variant) => {
  const application = `audit-writer-bench-${schemaOf(variant)}`;
  const writer = new AuditWriter(databaseUrl, {
    synchronous_commit: 'off',
    search_path: schemaOf(variant),
    application_name: application,
  });
  return { variant, application, writer, log: new AuditLog(writer) };
});

// The floor: a prepared statement that does nothing, one transaction per call, on the same kind of connection.
const bare = new pg.Client({ connectionString: databaseUrl, options: '-c application_name=audit-writer-bench-bare' });
await bare.connect();

const params = redactForAudit({ limit: 1, cursor: null, filters: { status: 'active' } });
const entry = (i: number) =>
  ({
    organizationId: 'org-bench',
    clientId: 'client-bench',
    connectorId: '6f1c2a4e-1b7d-4c3e-9a8b-0d2e4f6a8c1e',
    source: 'api',
    action: 'execute.list',
    entity: 'customers',
    params,
    idempotencyKey: null,
    requestId: `req-${i}`,
    status: 200,
    errorCode: null,
    upstreamStatus: 200,
    latencyMs: 1.234,
  }) as const;

async function run(call: (i: number) => Promise<unknown>, concurrency: number, idleMs: number) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ENTRIES) {
        if (idleMs > 0) await sleep(idleMs);
        await call(next++);
      }
    }),
  );
}

interface Totals {
  ownMs: number;
  backendMs: number;
  wallMs: number;
  ownSleeps: number;
  backendSleeps: number;
  entries: number;
}

const loadBefore = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
const sides: { name: string; application: string; call: (i: number) => Promise<unknown> }[] = [
  ...writers.map((w) => ({ name: w.variant, application: w.application, call: (i: number) => w.log.record(entry(i)) })),
  {
    name: 'bare select (floor)',
    application: 'audit-writer-bench-bare',
    call: (i: number) => bare.query({ name: 'bare', text: 'select $1::int as n', values: [i] }),
  },
];
// Connect and prepare everything before measuring.
for (const side of sides) await side.call(0);

const rows: string[][] = [];
const RUNS = [
  { label: '1', concurrency: 1, idleMs: 0 },
  ...(IDLE_MS > 0 ? [{ label: `1, idle ${IDLE_MS} ms before each`, concurrency: 1, idleMs: IDLE_MS }] : []),
  { label: '32', concurrency: 32, idleMs: 0 },
];
// With an idle wait, a side that only waits: its CPU and sleeps are the wait's, subtracted from the others'.
const idleAlone = { name: 'idle wait alone', application: 'audit-writer-bench-bare', call: async () => undefined };
const zero = (): Totals => ({ ownMs: 0, backendMs: 0, wallMs: 0, ownSleeps: 0, backendSleeps: 0, entries: 0 });
for (const { label, concurrency, idleMs } of RUNS) {
  const measured = idleMs > 0 ? [...sides, idleAlone] : sides;
  const totals = new Map<string, Totals>(measured.map((s) => [s.name, zero()]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 === 0 ? measured : [...measured].reverse()) {
      const pid = await backendPid(setup, side.application);
      const used = await cpuOfWork(pid, () => run(side.call, concurrency, idleMs));
      const t = totals.get(side.name)!;
      t.wallMs += used.wallMs;
      t.ownMs += used.ownMs;
      t.backendMs += used.backendMs;
      t.ownSleeps += used.ownSleeps;
      t.backendSleeps += side === idleAlone ? 0 : used.backendSleeps;
      t.entries += ENTRIES;
    }
  }
  const wait = idleMs > 0 ? totals.get(idleAlone.name)! : zero();
  const per = (t: Totals, key: keyof Totals, digits: number) => fixed((t[key] - wait[key]) / t.entries, digits);
  for (const side of sides) {
    const t = totals.get(side.name)!;
    rows.push([
      label,
      side.name,
      per(t, 'ownMs', 4),
      per(t, 'backendMs', 4),
      fixed((t.ownMs - wait.ownMs + t.backendMs) / t.entries, 4),
      per(t, 'wallMs', 4),
      `${per(t, 'ownSleeps', 2)} / ${per(t, 'backendSleeps', 2)}`,
    ]);
  }
}
console.log(`audit writer alone: ${ROUNDS} round(s) × ${ENTRIES} entries per variant and concurrency`);
console.log(
  table(
    [
      'concurrency',
      'table',
      'node CPU ms/entry',
      'Postgres CPU ms/entry',
      'sum',
      'wall ms/entry (at c=32: per entry)',
      'sleeps/entry node / Postgres',
    ],
    rows,
  ),
);

// What Postgres does per entry, counted rather than timed (the same on a loaded machine as on a quiet one): the
// buffers the INSERT touches and the WAL it writes, from EXPLAIN (ANALYZE, BUFFERS, WAL) of one-row inserts like the
// writer's, into each variant's table as the rounds above left it.
const EXPLAINED = 200;
const work: string[][] = [];
for (const variant of Object.keys(VARIANTS)) {
  await setup.query(`set search_path = ${schemaOf(variant)}, public`);
  let buffers = 0;
  let walRecords = 0;
  let walBytes = 0;
  for (let i = 0; i < EXPLAINED; i++) {
    const { rows } = await setup.query<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] }>(
      `explain (analyze, buffers, wal, costs off, timing off, format json)
        insert into audit_entries (organization_id, client_id, connector_id, source, action, entity, params, status,
          upstream_status, latency_ms, request_id)
        values ('org-bench', 'client-bench', '6f1c2a4e-1b7d-4c3e-9a8b-0d2e4f6a8c1e', 'api', 'execute.list',
          'customers', $1::jsonb, 200, 200, 1.234, $2)`,
      [JSON.stringify(params), `req-explained-${i}`],
    );
    const plan = rows[0]?.['QUERY PLAN'][0].Plan ?? {};
    buffers += (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
    walRecords += plan['WAL Records'] ?? 0;
    walBytes += plan['WAL Bytes'] ?? 0;
  }
  work.push([variant, fixed(buffers / EXPLAINED, 2), fixed(walRecords / EXPLAINED, 2), fixed(walBytes / EXPLAINED, 0)]);
}
await setup.query('set search_path = public');
console.log(`Postgres' work per one-row INSERT (mean of ${EXPLAINED}; the commit record not included)`);
console.log(table(['table', 'buffers touched', 'WAL records', 'WAL bytes'], work));
console.log(
  `load average (1, 5, 15 min) before: ${loadBefore}; after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
await bare.end();
for (const w of writers) await w.writer.close();
await setup.end();
await dropDatabase(databaseUrl);
