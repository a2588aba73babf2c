/**
 * pnpm bench:tenants: what many connectors cost. For each size (TENANT_SIZES, default 100,1000,10000) a fresh
 * platform (own database and namespace) gets that many Orb connectors (4 searchable entities each) created through
 * the API, one worker process syncs them all once, and then, with nothing due, the bench measures one steady
 * minute (TENANT_STEADY_SECONDS) of the worker's scheduling work (the reconciler re-checks every schedule each
 * RECONCILE_INTERVAL) and the stores' footprint, and times GET connector and a search on one connector against an
 * API process of its own. The upstream (Orb simulator, TENANT_CUSTOMERS customers per connector) runs in its own
 * process; this process is the load generator. Each size gets a Redis server of its own (Debian's redis-server, on a
 * free port, no persistence), so the Redis CPU and command counts are this platform's alone, not those of whatever
 * else uses the machine's shared Redis. Cost per connector must be flat: every per-connector column of
 * the last table should stay level as the size grows tenfold.
 *
 *   TENANT_SIZES=100,1000,10000  connector counts, each on a fresh platform
 *   WORKER_CONCURRENCY=4         the worker's slots (and the organization's share): a tiny entity run is mostly
 *                                waiting (an index refresh, the removal search, the count), so more slots finish
 *                                a large initial sync sooner; 10,000 connectors take about 40,000 such runs
 *   TENANT_CUSTOMERS=2           customers per connector in the upstream
 *   TENANT_STEADY_SECONDS=60, TENANT_PROBE_SECONDS=10  the steady window and each API probe
 *   TENANT_WORKER_LOG=info       keep the worker's log in .artifacts/tenants-worker-<size>.log
 *   TENANT_PROFILE=dir           run the worker with --cpu-prof, writing its profile into dir
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ApiProcess, processCpuMs } from '../harness/api-process.ts';
import { engineClient } from '../harness/engine-client.ts';
import { freePort } from '../harness/free-port.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { WorkerProcess } from '../harness/worker-process.ts';
import { spawnOrbUpstream } from './orb-upstream-process.ts';
import { fixed, ms, runConcurrent, summarize, table, verdict } from './stats.ts';

const SIZES = (process.env.TENANT_SIZES ?? '100,1000,10000').split(',').map(Number);
const STEADY_SECONDS = Number(process.env.TENANT_STEADY_SECONDS ?? 60);
const PROBE_SECONDS = Number(process.env.TENANT_PROBE_SECONDS ?? 10);
const WORKER_CONCURRENCY = process.env.WORKER_CONCURRENCY ?? '4';
const START = '2024-01-01T00:00:00Z';

const upstream = await spawnOrbUpstream({
  ...process.env,
  SCALEOUT_CUSTOMERS: process.env.TENANT_CUSTOMERS ?? '2',
  SCALEOUT_LATENCY_MS: process.env.TENANT_LATENCY_MS ?? '0',
});

interface SizeResult {
  connectors: number;
  createPerSecond: number;
  initialSyncSeconds: number;
  /** The worker's CPU over the initial sync (start-up included), in ms. */
  initialSyncWorkerCpuMs: number;
  entityRuns: number;
  workerCpuMsPerMinute: number;
  redisCpuMsPerMinute: number;
  redisCommandsPerMinute: number;
  redisKeys: number;
  redisBytes: number;
  postgresRows: number;
  postgresBytes: number;
  indices: number;
  getConnectorP50: number;
  searchP50: number;
  probeErrors: number;
}

async function redisInfo(platform: TestPlatform): Promise<{ cpuMs: number; usedBytes: number; commands: number }> {
  const info = await platform.api.deps.redis.info();
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return {
    cpuMs: (field('used_cpu_user') + field('used_cpu_sys')) * 1000,
    usedBytes: field('used_memory'),
    commands: field('total_commands_processed'),
  };
}

/** A Redis server of this size's own, answering PING before it is used. */
async function startPrivateRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const url = `redis://127.0.0.1:${port}/0`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // Refused while the server starts: the loop below retries; the event would otherwise be logged as unhandled.
  probe.on('error', () => undefined);
  for (let attempt = 0; ; attempt++) {
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch (error) {
      if (attempt > 50 || server.exitCode !== null) throw new Error(`redis-server on ${port} did not start: ${error}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  probe.disconnect();
  return {
    url,
    async stop() {
      server.kill('SIGTERM');
      if (server.exitCode === null) await once(server, 'exit');
    },
  };
}

/** Keys of this platform's namespace (its queues and its own keys all carry it). */
async function namespaceKeys(platform: TestPlatform): Promise<number> {
  let count = 0;
  let cursor = '0';
  do {
    const [next, keys] = await platform.api.deps.redis.scan(cursor, 'MATCH', `*${platform.namespace}*`, 'COUNT', 5000);
    cursor = next;
    count += keys.length;
  } while (cursor !== '0');
  return count;
}

async function createConnectors(platform: TestPlatform, count: number): Promise<string[]> {
  const ids: string[] = [];
  await runConcurrent(
    async (i) => {
      const created = await platform.call('POST', '/api/v1/integrations/connectors', {
        customer_name: `tenant-${i}`,
        connector_type: 'Orb',
        name: 'billing',
        credentials: { api_key: upstream.apiKey },
        replication_config: { start_date: START },
      });
      if (created.status !== 201) throw new Error(`create: ${created.status} ${await created.text()}`);
      ids.push(((await created.json()) as { connector_id: string }).connector_id);
    },
    { concurrency: 8, durationMs: Number.POSITIVE_INFINITY, maxCount: count },
  );
  if (ids.length !== count) throw new Error(`created ${ids.length} of ${count} connectors`);
  return ids;
}

async function measure(size: number): Promise<SizeResult> {
  const redis = await startPrivateRedis();
  const platform = await startTestPlatform({
    overrides: { baseUrls: { ORB: upstream.url }, tokenUrls: {} },
    worker: false,
    env: {
      REDIS_URL: redis.url,
      LOG_LEVEL: 'warn',
      // Nothing falls due during the bench: the steady minute is scheduling alone.
      SYNC_INTERVAL: '6h',
      RATE_LIMIT_PER_MINUTE: '100000000',
      // One organization holds every connector here; many tenants would each have their own share.
      ORGANIZATION_SYNC_CONCURRENCY: WORKER_CONCURRENCY,
    },
  });
  const db = new pg.Client({ connectionString: platform.api.deps.env.DATABASE_URL });
  await db.connect();
  const worker = new WorkerProcess(platform.api.deps.env, {
    CONNECTOR_BASE_URL_ORB: upstream.url,
    WORKER_METRICS_PORT: '0',
    WORKER_CONCURRENCY,
    ORGANIZATION_SYNC_CONCURRENCY: WORKER_CONCURRENCY,
    SYNC_INTERVAL: '6h',
    LOG_LEVEL: process.env.TENANT_WORKER_LOG ?? 'warn',
    ...(process.env.TENANT_PROFILE ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.TENANT_PROFILE}` } : {}),
  });
  let api: ApiProcess | undefined;
  try {
    const createStarted = performance.now();
    const ids = await createConnectors(platform, size);
    const createPerSecond = size / ((performance.now() - createStarted) / 1000);

    const syncStarted = performance.now();
    worker.start();
    for (;;) {
      const { rows } = await db.query<{ done: string; total: string }>(
        'SELECT count(*) FILTER (WHERE last_success_at IS NOT NULL AND NOT running) AS done, count(*) AS total FROM sync_states',
      );
      if (Number(rows[0]!.total) === size * 4 && rows[0]!.done === rows[0]!.total) break;
      if (worker.exitCode !== null) throw new Error(`the worker exited:\n${worker.output.slice(-10).join('\n')}`);
      if (performance.now() - syncStarted > 3_600_000) throw new Error('the initial sync did not finish in an hour');
      await new Promise((r) => setTimeout(r, 1000));
    }
    const initialSyncSeconds = (performance.now() - syncStarted) / 1000;
    const initialSyncWorkerCpuMs = processCpuMs(worker.pid!);

    // The steady minute: every connector synced, none due; the reconciler runs at least once in it.
    await new Promise((r) => setTimeout(r, 5000));
    const workerCpuBefore = processCpuMs(worker.pid!);
    const redisBefore = await redisInfo(platform);
    const runsBefore = await entityRunsStarted(db);
    await new Promise((r) => setTimeout(r, STEADY_SECONDS * 1000));
    const perMinute = 60 / STEADY_SECONDS;
    const workerCpuMsPerMinute = (processCpuMs(worker.pid!) - workerCpuBefore) * perMinute;
    const redisAfter = await redisInfo(platform);
    const redisCpuMsPerMinute = (redisAfter.cpuMs - redisBefore.cpuMs) * perMinute;
    // Less than exact by this bench's own INFO calls (two), which is nothing beside the platform's.
    const redisCommandsPerMinute = (redisAfter.commands - redisBefore.commands) * perMinute;
    const entityRuns = (await entityRunsStarted(db)) - runsBefore;

    await db.query('ANALYZE');
    const { rows: tableRows } = await db.query<{ rows: string }>(
      'SELECT coalesce(sum(n_live_tup), 0) AS rows FROM pg_stat_user_tables',
    );
    const { rows: sizeRows } = await db.query<{ bytes: string }>(
      'SELECT pg_database_size(current_database()) AS bytes',
    );
    const engine = engineClient(platform.api.deps.env);
    const indices = await engine.cat
      .indices({ index: `${platform.namespace}_*`, format: 'json' })
      .finally(() => engine.close());

    api = await ApiProcess.start(platform.api.deps.env, {
      CONNECTOR_BASE_URL_ORB: upstream.url,
      RATE_LIMIT_PER_MINUTE: '100000000',
    });
    const token = await platform.token();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const pick = (i: number) => ids[(i * 7919) % ids.length]!;
    const get = await runConcurrent(
      async (i) => {
        const response = await fetch(`${api!.url}/api/v1/integrations/connectors/${pick(i)}`, { headers });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`GET connector: ${response.status}`);
      },
      { concurrency: 1, durationMs: PROBE_SECONDS * 1000 },
    );
    const search = await runConcurrent(
      async (i) => {
        const response = await fetch(`${api!.url}/api/v1/integrations/connectors/${pick(i)}/execute`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ entity: 'customers', action: 'search', params: { query: {}, limit: 10 } }),
        });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`search: ${response.status}`);
      },
      { concurrency: 1, durationMs: PROBE_SECONDS * 1000 },
    );

    return {
      connectors: size,
      createPerSecond,
      initialSyncSeconds,
      initialSyncWorkerCpuMs,
      entityRuns,
      workerCpuMsPerMinute,
      redisCpuMsPerMinute,
      redisCommandsPerMinute,
      redisKeys: await namespaceKeys(platform),
      redisBytes: (await redisInfo(platform)).usedBytes,
      postgresRows: Number(tableRows[0]!.rows),
      postgresBytes: Number(sizeRows[0]!.bytes),
      indices: (indices.body as unknown[]).length,
      getConnectorP50: summarize(get).p50,
      searchP50: summarize(search).p50,
      probeErrors: get.errors + search.errors,
    };
  } finally {
    await api?.stop();
    await worker.kill('SIGTERM');
    if (process.env.TENANT_WORKER_LOG) writeFileSync(`.artifacts/tenants-worker-${size}.log`, worker.output.join('\n'));
    await db.end();
    await platform.close();
    await redis.stop();
  }
}

async function entityRunsStarted(db: pg.Client): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    "SELECT count(*) AS n FROM sync_states WHERE last_run_started_at > now() - interval '1 hour'",
  );
  return Number(rows[0]!.n);
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

try {
  console.log(
    `tenants: sizes ${SIZES.join(', ')} Orb connectors x 4 entities, ${process.env.TENANT_CUSTOMERS ?? 2} ` +
      `customers each, WORKER_CONCURRENCY=${WORKER_CONCURRENCY}, steady window ${STEADY_SECONDS} s; ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
  const results: SizeResult[] = [];
  for (const size of SIZES) {
    results.push(await measure(size));
    const r = results.at(-1)!;
    console.log(
      `  ${size}: created ${fixed(r.createPerSecond, 0)}/s, initial sync ${r.initialSyncSeconds.toFixed(1)} s ` +
        `(worker CPU ${fixed(r.initialSyncWorkerCpuMs / 1000, 1)} s), ` +
        `load average ${loadavg()[0]!.toFixed(2)}`,
    );
  }
  console.log(
    table(
      [
        'connectors',
        'create/s',
        'initial sync s',
        'worker CPU ms/min',
        'Redis CPU ms/min',
        'Redis commands/min',
        'entity runs in window',
        'Redis keys',
        'Redis used MiB',
        'Postgres rows',
        'Postgres MiB',
        'indices',
        'GET connector p50 ms',
        'search p50 ms',
        'probe errors',
      ],
      results.map((r) => [
        String(r.connectors),
        fixed(r.createPerSecond, 0),
        r.initialSyncSeconds.toFixed(1),
        fixed(r.workerCpuMsPerMinute, 0),
        fixed(r.redisCpuMsPerMinute, 0),
        fixed(r.redisCommandsPerMinute, 0),
        String(r.entityRuns),
        String(r.redisKeys),
        mib(r.redisBytes),
        String(r.postgresRows),
        mib(r.postgresBytes),
        String(r.indices),
        ms(r.getConnectorP50),
        ms(r.searchP50),
        String(r.probeErrors),
      ]),
    ),
  );
  console.log('\nper connector:');
  console.log(
    table(
      [
        'connectors',
        'initial sync ms',
        'initial sync worker CPU ms',
        'worker CPU ms/min',
        'Redis CPU ms/min',
        'Redis commands/min',
        'Redis keys',
        'Postgres rows',
      ],
      results.map((r) => [
        String(r.connectors),
        fixed((r.initialSyncSeconds * 1000) / r.connectors, 1),
        fixed(r.initialSyncWorkerCpuMs / r.connectors, 1),
        fixed(r.workerCpuMsPerMinute / r.connectors, 3),
        fixed(r.redisCpuMsPerMinute / r.connectors, 3),
        fixed(r.redisCommandsPerMinute / r.connectors, 2),
        fixed(r.redisKeys / r.connectors, 1),
        fixed(r.postgresRows / r.connectors, 1),
      ]),
    ),
  );
  // Flat: at no step from one size to the next does a per-connector cost grow by more than half (noise), and the
  // lookups a user waits for stay within 1.5x from the smallest size to the largest. Step by step, so that a cost
  // worse than linear between the two largest sizes is not hidden by the smallest size's fixed costs.
  const first = results[0]!;
  const last = results.at(-1)!;
  const worstStep = (f: (r: SizeResult) => number) => {
    let worst = { ratio: 0, from: first.connectors, to: first.connectors };
    for (const [i, r] of results.slice(1).entries()) {
      const before = results[i]!;
      const ratio = f(r) / r.connectors / (f(before) / before.connectors);
      if (ratio > worst.ratio) worst = { ratio, from: before.connectors, to: r.connectors };
    }
    return worst;
  };
  const checks: [string, (r: SizeResult) => number][] = [
    ['initial sync time per connector', (r) => r.initialSyncSeconds],
    ['initial sync worker CPU per connector', (r) => r.initialSyncWorkerCpuMs],
    ['worker CPU per connector per minute', (r) => r.workerCpuMsPerMinute],
    ['Redis CPU per connector per minute', (r) => r.redisCpuMsPerMinute],
    ['Redis commands per connector per minute', (r) => r.redisCommandsPerMinute],
    ['Redis keys per connector', (r) => r.redisKeys],
    ['Postgres rows per connector', (r) => r.postgresRows],
  ];
  for (const [name, f] of checks) {
    if (results.length < 2) break;
    const { ratio, from, to } = worstStep(f);
    console.log(`  ${verdict(ratio <= 1.5)}  ${name}: worst step ${fixed(ratio)}x, from ${from} to ${to}`);
  }
  for (const [name, f] of [
    ['GET connector p50', (r: SizeResult) => r.getConnectorP50],
    ['search p50', (r: SizeResult) => r.searchP50],
  ] as const) {
    const ratio = f(last) / f(first);
    console.log(`  ${verdict(ratio <= 1.5)}  ${name}: ${fixed(ratio)}x from ${first.connectors} to ${last.connectors}`);
  }
  console.log(`  load average at the end ${loadavg()[0]!.toFixed(2)}`);
} finally {
  upstream.process.kill('SIGTERM');
}
process.exit(0);
