/**
 * `pnpm bench:sync`: replication of N Orb customers through the real worker (its own child process) against raw
 * bulk indexing of the same documents, and the worker's peak RSS at N/10 and at N (it must not grow with N).
 *
 *   BENCH_RECORDS=1000000  customers (default 1,000,000; the run also does N/10 first)
 *   BENCH_PROFILE=dir      run the worker with --cpu-prof, writing its profiles into dir
 *   BENCH_MEMORY=dir       sample the worker's memory (worker-memory.ts) into dir/sync-<N>-<run>.jsonl and print,
 *                          per tenth of the sync: RSS, the live heap after each mark-compact, heapTotal, external
 *   BENCH_RAW=off          no raw side (a memory or A/B run at 1,000,000 without the raw grid's minutes)
 *   BENCH_ORB_RATE_LIMIT=1000  the Orb requests/s the worker is told (`learn`: none, the product learns one)
 *   BENCH_AB='WORKER_CONCURRENCY=4|WORKER_CONCURRENCY=8'  an A/B instead: at N only, each
 *       variant's worker environment (`|` between variants, spaces between NAME=value) synced in the order A B B A,
 *       back to back in this one run, then the raw side; prints each variant's rate, B/A and the load average.
 *       NODE_FLAGS=--a,--b in a variant: node flags for its worker after the product's (the later flag wins)
 *
 * Sync time runs from the connector's creation (which enqueues its first sync) to `customers` being `ready`.
 * Raw = the fastest bulk indexing of the same searchDocument() output this machine's OpenSearch takes (raw-bulk.ts:
 * a small grid of bulk sizes and concurrencies into a fresh index of the same mapping, with the same client; the
 * winning setting is printed); its rate is the winner's wall time over all N documents, refresh included.
 * Upstream: the Orb simulator's data generator and routes, with an indexed customers listing (orb-upstream.ts), in
 * a process of its own (sync-upstream.ts); its CPU per page is printed, so a run tells whether the upstream, not
 * the worker, was what it measured. The worker logs where its time went (phases_ms: waiting for upstream pages,
 * the page reads themselves, bulk requests, waiting for a group's feed append and checkpoint). Everything created
 * (databases, indices, queues) is removed at the end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { entityOf, findConnectorDefinition } from '@conduit/connectors';
import { WORKER_NODE_FLAGS } from '@conduit/worker';
import { entityStatuses } from '../harness/connector-status.ts';
import { engineClient } from '../harness/engine-client.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { generateOrbData } from '../simulators/orb/data.ts';
import { newestFirst, type UpstreamStats } from './orb-upstream.ts';
import { spawnOrbUpstream } from './orb-upstream-process.ts';
import { benchProcessGroups, cpuByGroup, cpuPerThousandTable, cpuSnapshot } from './process-cpu.ts';
import { fastestRawBulk, type RawResult } from './raw-bulk.ts';
import { fixed, table, verdict } from './stats.ts';
import { workerUpstreamEnv } from './worker-env.ts';
import { MEMORY_COLUMNS, summarize } from './worker-memory.ts';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const START = '2023-01-01T00:00:00Z';
const PROFILE = process.env.BENCH_PROFILE;
const MEMORY = process.env.BENCH_MEMORY;
const RAW = process.env.BENCH_RAW !== 'off';
const WORKER_MAIN = fileURLToPath(new URL('../../apps/worker/src/main.ts', import.meta.url));
const AB = process.env.BENCH_AB?.split('|').map((variant) =>
  Object.fromEntries(
    variant
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  ),
);

const catalog = findConnectorDefinition('Orb')?.catalog;
const entity = catalog ? entityOf(catalog, 'customers') : undefined;
if (!entity?.searchable) throw new Error('the Orb catalog has no searchable customers');

interface SyncResult {
  syncSeconds: number;
  syncRate: number;
  workerReportedRate: number | null;
  peakRssMb: number;
  maxSampledRssMb: number;
  phases: string | undefined;
  upstreamCpuMsPerPage: number;
  /** Busy CPU seconds of the whole machine over the sync (worker, upstream, engine, Postgres, Redis). */
  machineCpuSeconds: number;
  /** The same per process group (process-cpu.ts). */
  cpuByProcess: ReadonlyMap<string, number>;
  load: string;
}

interface RunResult extends SyncResult {
  records: number;
  raw: RawResult;
  rawRate: number;
}

const RSS_SAMPLE_MS = 2000;
let connectorsCreated = 0;

interface Setup {
  readonly n: number;
  readonly upstream: { url: string; apiKey: string; process: ChildProcess };
  readonly platform: TestPlatform;
}

if (AB) {
  await withSetup(RECORDS, async (setup) => {
    const label = (i: number) => String.fromCharCode(65 + i);
    const runs = AB.length === 2 ? [0, 1, 1, 0] : AB.map((_, i) => i);
    const measured: { variant: number; result: SyncResult }[] = [];
    let last = '';
    for (const variant of runs) {
      console.log(`\n--- variant ${label(variant)}: ${JSON.stringify(AB[variant])} ---`);
      const { result, connectorId } = await syncOnce(setup, AB[variant]!);
      measured.push({ variant, result });
      last = connectorId;
    }
    if (!RAW) return;
    const raw = await rawSide(setup, last);
    const rateOf = (variant: number) => {
      const runsOf = measured.filter((m) => m.variant === variant).map((m) => m.result);
      return runsOf.reduce((sum, r) => sum + r.syncRate, 0) / runsOf.length;
    };
    console.log(`\n=== A/B: ${setup.n} Orb customers, sync runs in the order ${runs.map(label).join(' ')} ===\n`);
    console.log(
      table(
        ['variant', 'env', 'sync s', 'sync rec/s', 'phases ms', 'upstream CPU ms/page', 'load', 'sync/raw'],
        measured.map(({ variant, result }) => [
          label(variant),
          JSON.stringify(AB[variant]),
          result.syncSeconds.toFixed(1),
          String(Math.round(result.syncRate)),
          result.phases ?? '-',
          fixed(result.upstreamCpuMsPerPage),
          result.load,
          fixed(result.syncRate / raw.best.rate),
        ]),
      ),
    );
    console.log(
      `\nraw: ${Math.round(raw.best.rate)} rec/s (flushBytes ${raw.best.flushBytes}, concurrency ${raw.best.concurrency})`,
    );
    printCpuByProcess([
      ...measured.map(({ variant, result }, i) => ({
        label: `${label(variant)} (run ${i + 1})`,
        records: setup.n,
        cpu: result.cpuByProcess,
      })),
      { label: 'raw', records: raw.best.documents, cpu: raw.best.cpuByProcess },
    ]);
    for (let i = 1; i < AB.length; i++)
      console.log(`${label(i)}/A = ${fixed(rateOf(i) / rateOf(0))} (mean rates; load at the end ${loadAverage()})`);
  });
} else {
  const results: RunResult[] = [];
  const peaks: number[] = [];
  for (const n of [Math.max(1, Math.round(RECORDS / 10)), RECORDS]) {
    await withSetup(n, async (setup) => {
      const { result, connectorId } = await syncOnce(setup, {});
      peaks.push(result.peakRssMb);
      if (!RAW) return;
      const raw = await rawSide(setup, connectorId);
      results.push({ ...result, records: n, raw, rawRate: raw.best.rate });
    });
  }
  if (RAW) report(results);
  else
    console.log(
      `\npeak RSS ${peaks.map((p) => p.toFixed(0)).join(' MB, then ')} MB (x${fixed(peaks[1]! / peaks[0]!)})`,
    );
}

async function withSetup<T>(n: number, work: (setup: Setup) => Promise<T>): Promise<T> {
  console.log(`\n--- ${n} customers ---`);
  const started = performance.now();
  const upstream = await spawnOrbUpstream(
    { PATH: process.env.PATH, SYNC_UPSTREAM_CUSTOMERS: String(n), SYNC_UPSTREAM_FROM: START },
    new URL('./sync-upstream.ts', import.meta.url),
  );
  try {
    console.log(`upstream (own process) data generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const platform = await startTestPlatform({
      overrides: { baseUrls: { ORB: upstream.url }, tokenUrls: {} },
      worker: false,
      env: { LOG_LEVEL: 'info' },
    });
    try {
      return await work({ n, upstream, platform });
    } finally {
      await platform.close();
    }
  } finally {
    upstream.process.kill('SIGTERM');
    if (upstream.process.exitCode === null) await once(upstream.process, 'exit');
  }
}

async function upstreamStats(url: string): Promise<UpstreamStats> {
  return (await (await fetch(new URL('/_bench/stats', url))).json()) as UpstreamStats;
}

async function syncOnce(
  { n, upstream, platform }: Setup,
  variantEnv: Record<string, string>,
): Promise<{ result: SyncResult; connectorId: string }> {
  let worker: ChildProcess | null = null;
  const { NODE_FLAGS: nodeFlags, ...workerEnv } = variantEnv;
  try {
    const output: string[] = [];
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      ...Object.fromEntries(Object.entries(platform.api.deps.env).map(([k, v]) => [k, String(v)])),
      CONNECTOR_BASE_URL_ORB: upstream.url,
      ...workerUpstreamEnv(),
      LOG_LEVEL: 'info',
      ...workerEnv,
    };
    const profile = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : [];
    const memoryFile = MEMORY ? `${MEMORY}/sync-${n}-${connectorsCreated + 1}.jsonl` : undefined;
    if (memoryFile) env.WORKER_MEMORY_FILE = memoryFile;
    const memory = memoryFile ? [`--import=${new URL('./worker-memory.ts', import.meta.url).href}`] : [];
    const child = spawn(
      process.execPath,
      [...WORKER_NODE_FLAGS, ...(nodeFlags?.split(',') ?? []), ...profile, ...memory, WORKER_MAIN],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    worker = child;
    // Whole lines (a chunk may end inside one).
    const keep = (line: string) => {
      if (line.includes('worker started') || line.includes('sync run finished') || line.includes('error'))
        output.push(line);
    };
    createInterface({ input: child.stdout! }).on('line', keep);
    createInterface({ input: child.stderr! }).on('line', keep);
    await waitFor(
      () => output.some((l) => l.includes('worker started')),
      60_000,
      () => output.join('\n'),
    );
    const pid = child.pid!;
    let maxSampled = 0;
    const rssSamples: [number, number][] = [];
    let lastSample = 0;
    const upstreamBefore = await upstreamStats(upstream.url);
    const cpuBefore = cpuSnapshot();
    const started = performance.now();
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
      name: `bench-${++connectorsCreated}`,
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
    const cpuAfter = cpuSnapshot();
    const machineCpuSeconds = cpuAfter.machineSeconds - cpuBefore.machineSeconds;
    const cpuByProcess = cpuByGroup(
      cpuBefore,
      cpuAfter,
      benchProcessGroups({
        worker: pid,
        upstream: upstream.process.pid,
        database: new URL(String(platform.api.deps.env.DATABASE_URL)).pathname.slice(1),
      }),
    );
    clearInterval(sampler);
    const load = loadAverage();
    const upstreamAfter = await upstreamStats(upstream.url);
    const upstreamCpuMsPerPage =
      (upstreamAfter.cpuMs - upstreamBefore.cpuMs) / Math.max(1, upstreamAfter.pages - upstreamBefore.pages);
    const workerCpu = cpuByProcess.get('worker') ?? 0;
    const peak = procStatusKb(pid, 'VmHWM') ?? maxSampled;
    if (done.record_count !== n) throw new Error(`expected ${n} records, the sync reports ${done.record_count}`);
    // The run logs its end just after it records it: give the line a moment to arrive.
    const finishedLine = () => output.find((l) => l.includes('sync run finished') && l.includes('"customers"'));
    await waitFor(finishedLine, 5000, () => '').catch(() => undefined);
    const finished = finishedLine();
    const reported = finished ? Number(/"records_per_s":(\d+)/.exec(finished)?.[1]) : Number.NaN;
    const phases = finished ? /"phases_ms":(\{[^}]*\})/.exec(finished)?.[1] : undefined;
    child.kill('SIGTERM');
    await once(child, 'exit');
    worker = null;
    console.log(`sync: ${n} records in ${syncSeconds.toFixed(1)} s, peak RSS ${mb(peak)} MB (load ${load})`);
    console.log(
      `worker phases (ms): ${phases ?? '-'}; worker CPU ${workerCpu.toFixed(1)} s ` +
        `(${fixed(workerCpu / syncSeconds)} of a core over the sync)`,
    );
    console.log(
      `upstream: ${upstreamAfter.pages - upstreamBefore.pages} pages, ${fixed(upstreamCpuMsPerPage)} ms CPU per page`,
    );
    console.log(`RSS samples (s: MB): ${rssSamples.map(([t, m]) => `${t.toFixed(0)}:${m.toFixed(0)}`).join(' ')}`);
    if (memoryFile) console.log(`worker memory (${memoryFile}):\n${table(MEMORY_COLUMNS, summarize(memoryFile))}`);
    return {
      connectorId,
      result: {
        syncSeconds,
        syncRate: n / syncSeconds,
        workerReportedRate: Number.isFinite(reported) ? reported : null,
        peakRssMb: peak / 1024,
        maxSampledRssMb: maxSampled / 1024,
        phases,
        upstreamCpuMsPerPage,
        machineCpuSeconds,
        cpuByProcess,
        load,
      },
    };
  } finally {
    if (worker && worker.exitCode === null) {
      worker.kill('SIGKILL');
      await once(worker, 'exit');
    }
  }
}

/** The raw side over the documents the upstream served, in its order (the same generator and seed). */
async function rawSide({ n, platform }: Setup, connectorId: string): Promise<RawResult> {
  const customers = newestFirst(
    generateOrbData({ customers: n, subscriptionsPerCustomer: 0, plans: 1, from: START }).customers,
  );
  const engine = engineClient(platform.api.deps.env);
  const raw = await fastestRawBulk(engine, `${platform.namespace}_raw`, entity!, connectorId, customers);
  await engine.close();
  console.log(
    `raw:  ${n} records in ${raw.best.seconds.toFixed(1)} s (flushBytes ${raw.best.flushBytes}, ` +
      `concurrency ${raw.best.concurrency}; load ${raw.load})`,
  );
  return raw;
}

function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
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

/** Where each side's CPU went: seconds per 1,000 records of each process group (other engineers' work included). */
function printCpuByProcess(sides: Parameters<typeof cpuPerThousandTable>[0]): void {
  console.log(`\n=== CPU s per 1,000 records by process (/proc/<pid>/stat; load ${loadAverage()}) ===\n`);
  console.log(table(['process', ...sides.map((side) => side.label)], cpuPerThousandTable(sides)));
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
  // On a machine whose cores the raw side keeps busy, a side that costs more CPU per record cannot go faster than
  // the two costs' ratio, whatever it overlaps: this says how much of a gap is work the sync does beyond raw.
  const cpuPerThousand = (r: RunResult) => ({
    raw: (r.raw.best.machineCpuSeconds / r.raw.best.documents) * 1000,
    sync: (r.machineCpuSeconds / r.records) * 1000,
  });
  console.log(
    `\n=== machine CPU per 1,000 records (every process, busy seconds from /proc/stat; ${cpus().length} cores) ===\n`,
  );
  console.log(
    table(
      ['records', 'raw CPU s', 'raw cores busy', 'sync CPU s', 'sync cores busy', 'raw CPU / sync CPU'],
      all.map((r) => {
        const cost = cpuPerThousand(r);
        return [
          String(r.records),
          fixed(cost.raw, 3),
          fixed(r.raw.best.machineCpuSeconds / r.raw.best.seconds),
          fixed(cost.sync, 3),
          fixed(r.machineCpuSeconds / r.syncSeconds),
          fixed(cost.raw / cost.sync),
        ];
      }),
    ),
  );
  printCpuByProcess(
    all.flatMap((r) => [
      { label: `raw ${r.records}`, records: r.raw.best.documents, cpu: r.raw.best.cpuByProcess },
      { label: `sync ${r.records}`, records: r.records, cpu: r.cpuByProcess },
    ]),
  );
  const ratio = full.syncRate / full.rawRate;
  const growth = full.peakRssMb / small.peakRssMb;
  console.log(
    `\nraw winner at ${full.records}: flushBytes ${full.raw.best.flushBytes} x concurrency ${full.raw.best.concurrency}` +
      ` (the worker's: search-store's CopyWriter bulk setting); worker phases ms: ${full.phases ?? '-'};` +
      ` upstream ${fixed(full.upstreamCpuMsPerPage)} ms CPU per page; load ${full.load}`,
  );
  console.log('\ntargets (informational):');
  console.log(`  ${verdict(ratio >= 0.85)}  sync/raw ${fixed(ratio)} >= 0.85 at ${full.records} records`);
  console.log(`  ${verdict(full.peakRssMb <= 300)}  worker peak RSS ${full.peakRssMb.toFixed(0)} MB <= 300 MB`);
  console.log(
    `  ${verdict(growth <= 1.15)}  peak RSS flat in N: ${small.peakRssMb.toFixed(0)} MB at ${small.records}, ` +
      `${full.peakRssMb.toFixed(0)} MB at ${full.records} (x${fixed(growth)}, <= 1.15)`,
  );
}
