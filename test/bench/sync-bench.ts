/**
 * `pnpm bench:sync`: replication of N Orb customers through the real worker (its own child process) against raw
 * bulk indexing of the same documents, and the worker's peak RSS at N/10 and at N (it must not grow with N).
 *
 *   BENCH_RECORDS=1000000  customers (default 1,000,000; the run also does N/10 first)
 *   BENCH_PROFILE=dir      run the worker with --cpu-prof, writing its profiles into dir
 *   OPENSEARCH_BULK_BYTES, OPENSEARCH_BULK_CONCURRENCY  the worker's bulk setting (default: the product's)
 *   BENCH_ORB_RATE_LIMIT=1000  the Orb requests/s the worker is told (`learn`: none, the product learns one)
 *
 * Sync time runs from the connector's creation (which enqueues its first sync) to `customers` being `ready`.
 * Raw = the fastest bulk indexing of the same searchDocument() output this machine's OpenSearch takes (raw-bulk.ts:
 * a small grid of bulk sizes and concurrencies into a fresh index of the same mapping, with the same client; the
 * winning setting is printed); its rate is the winner's wall time over all N documents, refresh included. Upstream: the Orb simulator's data generator and routes, with an indexed customers listing
 * (see orb-upstream.ts). Everything created (databases, indices, queues) is removed at the end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { entityOf, findConnectorDefinition } from '@conduit/connectors';
import { WORKER_NODE_FLAGS } from '@conduit/worker';
import { entityStatuses } from '../harness/connector-status.ts';
import { startTestPlatform } from '../harness/platform.ts';
import { startBenchOrbUpstream } from './orb-upstream.ts';
import { fastestRawBulk, type RawResult } from './raw-bulk.ts';
import { fixed, table, verdict } from './stats.ts';
import { workerBulkEnv, workerUpstreamEnv } from './worker-env.ts';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const START = '2023-01-01T00:00:00Z';
const PROFILE = process.env.BENCH_PROFILE;
const WORKER_MAIN = fileURLToPath(new URL('../../apps/worker/src/main.ts', import.meta.url));

const catalog = findConnectorDefinition('Orb')?.catalog;
const entity = catalog ? entityOf(catalog, 'customers') : undefined;
if (!entity?.searchable) throw new Error('the Orb catalog has no searchable customers');

interface RunResult {
  records: number;
  syncSeconds: number;
  syncRate: number;
  workerReportedRate: number | null;
  raw: RawResult;
  rawRate: number;
  peakRssMb: number;
  maxSampledRssMb: number;
  /** [seconds since the sync began, RSS MB], every RSS_SAMPLE_MS. */
  rssSamples: [number, number][];
}

const RSS_SAMPLE_MS = 2000;

const results: RunResult[] = [];
for (const n of [Math.max(1, Math.round(RECORDS / 10)), RECORDS]) {
  results.push(await run(n));
}
report(results);

async function run(n: number): Promise<RunResult> {
  console.log(`\n--- ${n} customers ---`);
  let started = performance.now();
  const upstream = await startBenchOrbUpstream({ customers: n, subscriptionsPerCustomer: 0, plans: 1, from: START });
  console.log(`upstream data generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const platform = await startTestPlatform({
    overrides: { baseUrls: { ORB: upstream.url }, tokenUrls: {} },
    worker: false,
    env: { LOG_LEVEL: 'info', ...workerBulkEnv() },
  });
  let worker: ChildProcess | null = null;
  try {
    const output: string[] = [];
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      ...Object.fromEntries(Object.entries(platform.api.deps.env).map(([k, v]) => [k, String(v)])),
      CONNECTOR_BASE_URL_ORB: upstream.url,
      ...workerUpstreamEnv(),
      LOG_LEVEL: 'info',
    };
    const profile = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : [];
    const child = spawn(process.execPath, [...WORKER_NODE_FLAGS, ...profile, WORKER_MAIN], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker = child;
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        if (line.includes('worker started') || line.includes('sync run finished') || line.includes('error'))
          output.push(line);
      }
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    await waitFor(
      () => output.some((l) => l.includes('worker started')),
      60_000,
      () => output.join('\n'),
    );
    const pid = child.pid!;
    let maxSampled = 0;
    const rssSamples: [number, number][] = [];
    let lastSample = 0;
    started = performance.now();
    const sampler = setInterval(() => {
      const rss = procStatusKb(pid, 'VmRSS');
      if (rss === null) return;
      maxSampled = Math.max(maxSampled, rss);
      if (performance.now() - lastSample >= RSS_SAMPLE_MS) {
        lastSample = performance.now();
        rssSamples.push([(lastSample - started) / 1000, rss / 1024]);
      }
    }, 200);

    const created = await platform.call('POST', '/api/v1/integrations/connectors', {
      customer_name: 'bench',
      connector_type: 'Orb',
      name: 'bench',
      credentials: { api_key: upstream.apiKey },
      replication_config: { start_date: START },
    });
    if (created.status !== 201) throw new Error(`create failed: ${created.status} ${await created.text()}`);
    const connectorId = ((await created.json()) as { connector_id: string }).connector_id;
    let lastLog = started;
    const done = await waitFor(
      async () => {
        const status = (await entityStatuses(platform, connectorId)).customers;
        if (status?.error) throw new Error(`customers sync failed: ${status.error}`);
        if (performance.now() - lastLog > 15_000) {
          lastLog = performance.now();
          const seconds = (lastLog - started) / 1000;
          console.log(`  ${status?.record_count ?? 0} records after ${seconds.toFixed(0)} s, RSS ${mb(maxSampled)} MB`);
        }
        return status?.status === 'ready' && !status.running ? status : undefined;
      },
      3_600_000,
      () => output.slice(-10).join('\n'),
      100,
    );
    const syncSeconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const peak = procStatusKb(pid, 'VmHWM') ?? maxSampled;
    if (done.record_count !== n) throw new Error(`expected ${n} records, the sync reports ${done.record_count}`);
    const finished = output.find((l) => l.includes('sync run finished') && l.includes('"customers"'));
    const reported = finished ? Number(/"records_per_s":(\d+)/.exec(finished)?.[1]) : Number.NaN;
    child.kill('SIGTERM');
    await once(child, 'exit');
    worker = null;
    console.log(`sync: ${n} records in ${syncSeconds.toFixed(1)} s, peak RSS ${mb(peak)} MB`);

    console.log(`RSS samples (s: MB): ${rssSamples.map(([t, m]) => `${t.toFixed(0)}:${m.toFixed(0)}`).join(' ')}`);

    const raw = await fastestRawBulk(
      platform.api.deps.indexStore.client,
      `${platform.namespace}_raw`,
      entity!,
      connectorId,
      upstream.customersInOrder,
    );
    console.log(
      `raw:  ${n} records in ${raw.best.seconds.toFixed(1)} s (flushBytes ${raw.best.flushBytes}, ` +
        `concurrency ${raw.best.concurrency}; load ${raw.load})`,
    );
    return {
      records: n,
      syncSeconds,
      syncRate: n / syncSeconds,
      workerReportedRate: Number.isFinite(reported) ? reported : null,
      raw,
      rawRate: raw.best.rate,
      peakRssMb: peak / 1024,
      maxSampledRssMb: maxSampled / 1024,
      rssSamples,
    };
  } finally {
    if (worker && worker.exitCode === null) {
      worker.kill('SIGKILL');
      await once(worker, 'exit');
    }
    await platform.close();
    await upstream.close();
  }
}

function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

function mb(kb: number): string {
  return (kb / 1024).toFixed(0);
}

async function waitFor<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  context: () => string,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms:\n${context()}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

function report(all: RunResult[]): void {
  const full = all.at(-1)!;
  const small = all[0]!;
  console.log(`\n=== raw bulk grid (the fastest setting of each size is its raw side; load ${full.raw.load}) ===\n`);
  console.log(
    table(
      ['records', 'documents', 'flushBytes', 'concurrency', 's', 'docs/s'],
      all.flatMap((r) =>
        r.raw.trials.map((t) => [
          String(r.records),
          String(t.documents),
          String(t.flushBytes),
          String(t.concurrency),
          t.seconds.toFixed(1),
          String(Math.round(t.rate)),
        ]),
      ),
    ),
  );
  console.log(`\n=== sync: Orb customers through the worker (child process) vs the fastest raw bulk ===\n`);
  console.log(
    table(
      [
        'records',
        'sync s',
        'sync rec/s',
        'worker-reported rec/s',
        'raw setting',
        'raw s',
        'raw rec/s',
        'sync/raw',
        'peak RSS MB',
      ],
      all.map((r) => [
        String(r.records),
        r.syncSeconds.toFixed(1),
        String(Math.round(r.syncRate)),
        r.workerReportedRate === null ? '-' : String(r.workerReportedRate),
        `${r.raw.best.flushBytes} B x${r.raw.best.concurrency}`,
        r.raw.best.seconds.toFixed(1),
        String(Math.round(r.rawRate)),
        fixed(r.syncRate / r.rawRate),
        `${r.peakRssMb.toFixed(0)} (max sampled ${r.maxSampledRssMb.toFixed(0)})`,
      ]),
    ),
  );
  const ratio = full.syncRate / full.rawRate;
  const growth = full.peakRssMb / small.peakRssMb;
  console.log('\ntargets (informational):');
  console.log(`  ${verdict(ratio >= 0.85)}  sync/raw ${fixed(ratio)} >= 0.85 at ${full.records} records`);
  console.log(`  ${verdict(full.peakRssMb <= 300)}  worker peak RSS ${full.peakRssMb.toFixed(0)} MB <= 300 MB`);
  console.log(
    `  ${verdict(growth <= 1.15)}  peak RSS flat in N: ${small.peakRssMb.toFixed(0)} MB at ${small.records}, ` +
      `${full.peakRssMb.toFixed(0)} MB at ${full.records} (x${fixed(growth)}, <= 1.15)`,
  );
}
