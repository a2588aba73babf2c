/**
 * Where the change feed lives, measured (docs/changes.md): appends of N events (Orb customers as the simulator
 * makes them) through the sync's path (ChangeFeedRepository.appendWritten: content hash, then the append) in batches of 1,000
 * (one sync write group each) into a fresh Postgres database, with the CPU they cost this process and the
 * database's backends per 1,000 events, then reads of the whole feed in pages
 * of 1,000, reads filtered by entity, and the retention delete of everything. Each slice of the appends
 * (BENCH_SLICE events, default a tenth of the run) prints the backends' CPU, the WAL written (the server's, so
 * other databases' writes count too; full-page images apart) and the blocks the feed's tables read from outside
 * shared buffers, per 1,000 events, with the tables' sizes after it: how the cost grows with the feed in one run.
 *
 *   node test/bench/change-feed-store-bench.ts            # BENCH_EVENTS=1000000 by default
 *   BENCH_EVENTS=100000 BENCH_SLICE=10000 node test/bench/change-feed-store-bench.ts
 *   BENCH_ENTITIES=1 node test/bench/change-feed-store-bench.ts   # all in one entity (default: 4 in turn)
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { localDatabaseUrl, readEnv } from '@conduit/config';
import { createLogger } from '@conduit/observability';
import { connectPlatformServices } from '@conduit/platform';
import pg from 'pg';
import { dropDatabase, withDatabaseName } from '../harness/databases.ts';
import { generateOrbData } from '../simulators/orb/data.ts';
import { benchProcessGroups, cpuByGroup, cpuSnapshot } from './process-cpu.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const BATCH = 1000;
const SLICE = Number(process.env.BENCH_SLICE ?? Math.max(BATCH, Math.round(EVENTS / 10 / BATCH) * BATCH));
/** Batches go to each entity in turn; BENCH_ENTITIES=1 puts every record in one, as a sync of one entity does. */
const ENTITIES = ['customers', 'invoices', 'subscriptions', 'plans'].slice(0, Number(process.env.BENCH_ENTITIES ?? 4));
const FILTERED = ENTITIES[ENTITIES.length - 1]!;

const suffix = randomBytes(4).toString('hex');
const url = withDatabaseName(process.env.DATABASE_URL ?? localDatabaseUrl('conduit'), `bench_feed_${suffix}`);
const env = readEnv({ ...process.env, DATABASE_URL: url, NAMESPACE: `bench_feed_${suffix}` });
const services = await connectPlatformServices(
  env,
  { baseUrls: {}, tokenUrls: {} },
  createLogger({ level: 'error', write: () => undefined }),
  'worker',
);
try {
  const { db } = services;
  await db.insertInto('organizations').values({ id: 'bench', name: 'bench' }).execute();
  const connectorId = `bench-${suffix}`;
  await services.connectors.insert({
    id: connectorId,
    organization_id: 'bench',
    connector_type: 'Orb',
    customer_name: 'bench',
    name: 'bench',
    credentials_ciphertext: 'x',
    config: '{}',
    replication_config: JSON.stringify({ start_date: '2024-01-01T00:00:00Z' }),
  });
  const feed = services.changeFeed;

  const customers = generateOrbData({
    customers: EVENTS,
    subscriptionsPerCustomer: 0,
    plans: 1,
    from: '2023-01-01T00:00:00Z',
  }).customers;
  const stats = new pg.Client({ connectionString: url });
  await stats.connect();
  const groups = benchProcessGroups({ database: new URL(url).pathname.slice(1) });
  console.log(
    'slice (events)  backends CPU s  WAL KB  full-page images  blocks read  per 1,000 events; sizes MB after',
  );
  let slice = { cpu: cpuSnapshot(), io: await feedIo(stats), from: 0 };
  const cpuBefore = slice.cpu;
  let started = performance.now();
  const appendMs: number[] = [];
  for (let from = 0; from < EVENTS; from += BATCH) {
    const entity = ENTITIES[(from / BATCH) % ENTITIES.length]!;
    const writes = customers.slice(from, from + BATCH).map((record) => ({
      kind: 'upsert' as const,
      key: String(record.id),
      version: Date.now(),
      record: record as Record<string, unknown>,
    }));
    const at = performance.now();
    await feed.appendWritten({ target: { connectorId, entity, source: 'full_pass' }, applied: writes });
    appendMs.push(performance.now() - at);
    const done = from + BATCH;
    if (done % SLICE === 0 || done >= EVENTS) {
      const next = { cpu: cpuSnapshot(), io: await feedIo(stats), from: done };
      const per = (value: number) => ((value / (done - slice.from)) * 1000).toFixed(3);
      const cpu = cpuByGroup(slice.cpu, next.cpu, groups).get('postgres (run db)') ?? 0;
      console.log(
        [
          `${slice.from}-${done}`,
          per(cpu),
          per((next.io.walBytes - slice.io.walBytes) / 1024),
          per(next.io.fullPages - slice.io.fullPages),
          per(next.io.blocksRead - slice.io.blocksRead),
          await feedSizes(stats),
          `load ${loadavg()[0]!.toFixed(2)}`,
        ].join('  '),
      );
      slice = next;
    }
  }
  await stats.end();
  const appendSeconds = (performance.now() - started) / 1000;
  const appendCpu = cpuByGroup(
    cpuBefore,
    cpuSnapshot(),
    benchProcessGroups({ database: new URL(url).pathname.slice(1) }),
  );

  started = performance.now();
  let read = 0;
  let after = 0;
  const pageMs: number[] = [];
  for (;;) {
    const at = performance.now();
    const page = await feed.read(connectorId, { after, limit: BATCH });
    pageMs.push(performance.now() - at);
    if (page.length === 0) break;
    read += page.length;
    after = page[page.length - 1]!.seq;
  }
  const readSeconds = (performance.now() - started) / 1000;

  const filteredMs: number[] = [];
  for (const fraction of [0, 0.5, 0.99]) {
    const at = performance.now();
    await feed.read(connectorId, { after: Math.floor(EVENTS * fraction), limit: 100, entity: FILTERED });
    filteredMs.push(performance.now() - at);
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const size = (
    await client.query("select count(*) as n, pg_total_relation_size('change_events') as bytes from change_events")
  ).rows[0] as { n: string; bytes: string };
  await client.end();
  const total = Number(size.bytes);

  started = performance.now();
  const purged = await feed.purgeBefore(new Date(Date.now() + 1000));
  const purgeSeconds = (performance.now() - started) / 1000;

  const p = (values: number[], q: number) =>
    [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * q)]!.toFixed(1);
  console.log(`events: ${EVENTS} (${size.n} stored, ${(total / 1e6).toFixed(0)} MB with indexes)`);
  console.log(
    `append: ${Math.round(EVENTS / appendSeconds)} events/s; per batch of ${BATCH}: p50 ${p(appendMs, 0.5)} ms, p95 ${p(appendMs, 0.95)} ms`,
  );
  const perThousand = (group: string) => (((appendCpu.get(group) ?? 0) / EVENTS) * 1000).toFixed(3);
  console.log(
    `append CPU s per 1,000 events: this process ${perThousand('bench+API')}, the database's backends ` +
      `${perThousand('postgres (run db)')}, WAL writer and checkpointer ${perThousand('postgres (wal, checkpoint)')} ` +
      `(load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
  );
  console.log(
    `read all in pages of ${BATCH}: ${Math.round(read / readSeconds)} events/s; per page p50 ${p(pageMs, 0.5)} ms, p95 ${p(pageMs, 0.95)} ms`,
  );
  console.log(
    `read 100 of one entity (1/${ENTITIES.length} of the events) from 0%, 50%, 99%: ${filteredMs.map((m) => m.toFixed(1)).join(', ')} ms`,
  );
  console.log(`retention delete of all: ${purged} events in ${purgeSeconds.toFixed(1)} s`);
} finally {
  await services.close();
  await dropDatabase(url);
}

/**
 * The server's WAL position and full-page images written (up to 8 KB each), and the feed tables' blocks read from
 * outside shared buffers, heap and indexes.
 */
async function feedIo(client: pg.Client): Promise<{ walBytes: number; fullPages: number; blocksRead: number }> {
  const row = (
    await client.query(`
      select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') as wal, (select wal_fpi from pg_stat_wal) as fpi,
        (select sum(coalesce(heap_blks_read, 0) + coalesce(idx_blks_read, 0) + coalesce(toast_blks_read, 0))
         from pg_statio_user_tables where relname in ('record_states', 'change_events')) as read`)
  ).rows[0] as { wal: string; fpi: string; read: string };
  return { walBytes: Number(row.wal), fullPages: Number(row.fpi), blocksRead: Number(row.read) };
}

/** Each feed table and index's size in MB, with the server's shared buffers for scale. */
async function feedSizes(client: pg.Client): Promise<string> {
  const { rows } = await client.query(`
    select c.relname as name, pg_relation_size(c.oid) as bytes from pg_class c
    where c.relname in ('record_states', 'change_events') or c.oid in (
      select indexrelid from pg_index where indrelid in ('record_states'::regclass, 'change_events'::regclass))
    order by c.relname`);
  return (rows as { name: string; bytes: string }[])
    .map((r) => `${r.name} ${Math.round(Number(r.bytes) / 1e6)}`)
    .join(', ');
}
