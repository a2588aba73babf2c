/**
 * `pnpm bench:audit`: what a change to the audit trail costs a call. Two API processes on the same services, this
 * checkout's (`on`: one row flushed to disk before the answer) and the one of BENCH_BASE_CHECKOUT (`off`: a worktree
 * of the commit to compare with, installed; e.g. one whose trail is switched off in code), answer the same live
 * execute call (an Orb customers list against the simulator) in interleaved rounds, at concurrency 1 (the added latency per call:
 * target ≤ 0.3 ms) and 32 (throughput with the trail over throughput without: target ≥ 0.9). The load generator
 * runs in its own process (audit-load.ts); the API processes' CPU per call is reported beside, and the load
 * average before and after (the machine may be shared).
 *
 *   BENCH_SECONDS=3           measured seconds per side, concurrency and round (after BENCH_WARMUP_SECONDS=0.5)
 *   BENCH_ROUNDS=6            rounds; the sides alternate within each
 *   BENCH_CONCURRENCY=1,32    concurrencies
 *   BENCH_BASE_CHECKOUT=dir  required: the checkout whose API is the `off` side
 *   BENCH_CPU_PROF=dir        each API process writes a V8 CPU profile there (node --cpu-prof) when it stops
 *   BENCH_PAIRED_SECONDS=10   then, at concurrency 1, one call to each side in turn for this long (0: skip): every
 *                            side sees the same moment's load, so on a shared machine the paired differences (each
 *                            call against the trail-off call of its turn) move far less than the rounds' means
 *
 * Needs the local Postgres, Redis and OpenSearch. Exit code 0 unless something crashed; PASS/MISS lines are
 * informational.
 */
import { fork } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ApiProcess, processCpuMs } from '../harness/api-process.ts';
import { startTestPlatform } from '../harness/platform.ts';
import { startOrbSimulator } from '../simulators/orb/simulator.ts';
import type { AuditLoadCommand, AuditLoadResult, AuditPairedCommand, AuditPairedResult } from './audit-load.ts';
import { fixed, ms, percentile, table, verdict } from './stats.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 0.5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '1,32').split(',').map(Number);
const PAIRED_SECONDS = Number(process.env.BENCH_PAIRED_SECONDS ?? 10);

interface Totals {
  latencies: number[];
  elapsedMs: number;
  errors: number;
  /** CPU of the side's API process and its Postgres backends. */
  cpuMs: number;
  /** The part of `cpuMs` spent by the Postgres backends. */
  pgCpuMs: number;
  /** CPU of everything the call runs on: the above, the load generator and the simulator (this process). */
  allCpuMs: number;
}

/** The API of BENCH_BASE_CHECKOUT (`off`) and this checkout's (`on`). */
type SideName = 'off' | 'on';
const BASE_CHECKOUT = process.env.BENCH_BASE_CHECKOUT;
if (!BASE_CHECKOUT) throw new Error('bench:audit compares with another checkout: set BENCH_BASE_CHECKOUT');
const COMMITS = ['on'] as const;

const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const loadBefore = loadAverage();
const cpus = availableParallelism();

const appName = (side: SideName) => `audit-bench-${side}`;

/** CPU used so far (ms) by a side's API process and its Postgres backends, the load generator and this process. */
async function cpuNow(side: { name: SideName; api: ApiProcess }, postgres: pg.Client) {
  const { rows } = await postgres.query<{ pid: number }>(
    'select pid from pg_stat_activity where application_name = $1',
    [appName(side.name)],
  );
  const backends = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      backends.set(pid, processCpuMs(pid));
    } catch {
      // ended meanwhile
    }
  }
  const own = process.cpuUsage();
  return { api: side.api.cpuMs(), backends, load: processCpuMs(load.pid!), own: (own.user + own.system) / 1000 };
}

/** cpuNow of each side, one after the other: one client runs one query at a time. */
async function cpuOfEach(sides: readonly { name: SideName; api: ApiProcess }[], postgres: pg.Client) {
  const cpu = [];
  for (const side of sides) cpu.push(await cpuNow(side, postgres));
  return cpu;
}

const load = fork(fileURLToPath(new URL('./audit-load.ts', import.meta.url)));
const loadReady = new Promise<void>((resolve) => load.once('message', () => resolve()));
const runLoad = <Result = AuditLoadResult>(command: AuditLoadCommand | AuditPairedCommand) =>
  new Promise<Result>((resolve) => {
    load.once('message', (result: Result) => resolve(result));
    load.send(command);
  });

const sim = await startOrbSimulator({ customers: 20, subscriptionsPerCustomer: 0 });
const platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {} }, worker: false });
const sides: { name: SideName; api: ApiProcess }[] = [];
let postgres: pg.Client | undefined;
try {
  const created = await platform.call('POST', '/api/v1/integrations/connectors', {
    customer_name: 'bench',
    connector_type: 'Orb',
    name: 'audit',
    credentials: { api_key: sim.apiKey },
    replication_config: { start_date: '2024-01-01T00:00:00Z' },
  });
  const connectorId = ((await created.json()) as { connector_id: string }).connector_id;
  const token = await platform.token();
  // Neither our per-client limit nor the connector's upstream budget may be what is measured.
  const extra = {
    CONNECTOR_BASE_URL_ORB: sim.url,
    RATE_LIMIT_PER_MINUTE: '100000000',
    CONNECTOR_RATE_LIMIT_ORB: '1000000',
  };
  for (const name of ['off', ...COMMITS] as const) {
    const profileDir = process.env.BENCH_CPU_PROF;
    const api = await ApiProcess.start(
      platform.api.deps.env,
      { ...extra, PGAPPNAME: appName(name) },
      {
        ...(profileDir
          ? { nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=api-${name}.cpuprofile`] }
          : {}),
        ...(name === 'off' ? { checkout: BASE_CHECKOUT } : {}),
      },
    );
    sides.push({ name, api });
  }
  await loadReady;
  const db = new pg.Client({ connectionString: platform.api.deps.env.DATABASE_URL });
  postgres = db;
  await db.connect();
  const path = `/api/v1/integrations/connectors/${connectorId}/execute`;
  const body = JSON.stringify({ entity: 'customers', action: 'list', params: { limit: 1 } });
  const headers = { authorization: `Bearer ${token}` };

  const rows: string[][] = [];
  const verdicts: string[] = [];
  for (const concurrency of CONCURRENCY) {
    const totals = Object.fromEntries(
      sides.map((side): [SideName, Totals] => [
        side.name,
        { latencies: [], elapsedMs: 0, errors: 0, cpuMs: 0, pgCpuMs: 0, allCpuMs: 0 },
      ]),
    ) as Record<SideName, Totals>;
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const before = await cpuNow(side, db);
        const result = await runLoad({
          type: 'run',
          url: side.api.url,
          path,
          body,
          headers,
          concurrency,
          warmupMs: WARMUP_SECONDS * 1000,
          durationMs: SECONDS * 1000,
        });
        if (result.firstError) console.error(`${side.name} c=${concurrency}:`, result.firstError);
        const t = totals[side.name];
        t.latencies.push(...result.latencies);
        t.elapsedMs += result.elapsedMs;
        t.errors += result.errors;
        // Over the warm-up too: scaled to the measured part (the same for every side).
        const after = await cpuNow(side, db);
        const share = SECONDS / (SECONDS + WARMUP_SECONDS);
        const backends = [...after.backends].reduce((sum, [pid, ms]) => sum + ms - (before.backends.get(pid) ?? 0), 0);
        t.cpuMs += (after.api - before.api + backends) * share;
        t.pgCpuMs += backends * share;
        t.allCpuMs += (after.api - before.api + backends + after.load - before.load + after.own - before.own) * share;
      }
    }
    const mean = (t: Totals) => t.latencies.reduce((a, b) => a + b, 0) / Math.max(1, t.latencies.length);
    const p50 = (t: Totals) =>
      percentile(
        [...t.latencies].sort((a, b) => a - b),
        0.5,
      );
    const throughput = (t: Totals) => (t.latencies.length * 1000) / Math.max(1, t.elapsedMs);
    const cpuPerCall = (t: Totals) => t.cpuMs / Math.max(1, t.latencies.length);
    const pgCpuPerCall = (t: Totals) => t.pgCpuMs / Math.max(1, t.latencies.length);
    const allCpuPerCall = (t: Totals) => t.allCpuMs / Math.max(1, t.latencies.length);
    const off = totals.off;
    for (const name of COMMITS) {
      const on = totals[name];
      const added = mean(on) - mean(off);
      const ratio = throughput(on) / throughput(off);
      rows.push([
        String(concurrency),
        name,
        ms(mean(off)),
        ms(mean(on)),
        fixed(added, 3),
        fixed(p50(on) - p50(off), 3),
        fixed(throughput(off), 0),
        fixed(throughput(on), 0),
        fixed(ratio, 3),
        `${fixed(cpuPerCall(off), 3)} / ${fixed(cpuPerCall(on), 3)}`,
        `${fixed(pgCpuPerCall(off), 3)} / ${fixed(pgCpuPerCall(on), 3)}`,
        fixed(allCpuPerCall(off) / allCpuPerCall(on), 3),
        String(on.errors + off.errors),
      ]);
      const label = name;
      if (concurrency === 1) {
        verdicts.push(
          `${verdict(added <= 0.3)} ${label}: added latency at concurrency 1: ${fixed(added, 3)} ms mean, ${fixed(p50(on) - p50(off), 3)} ms p50 (≤ 0.3)`,
        );
      }
      if (concurrency >= 32) {
        verdicts.push(
          `${verdict(ratio >= 0.9)} ${label}: throughput at concurrency ${concurrency}: ${fixed(ratio, 3)}× (≥ 0.9)`,
        );
      }
    }
  }
  console.log(
    `audit trail of this checkout (on) vs ${BASE_CHECKOUT} (off): live execute (Orb customers list) on ${COMMITS.length + 1} API processes, load generator in its own process, ${ROUNDS} round(s) × ${SECONDS} s per side`,
  );
  console.log(
    table(
      [
        'concurrency',
        'commit',
        'mean off ms',
        'mean on ms',
        'added ms',
        'added p50 ms',
        'req/s off',
        'req/s on',
        'on/off',
        'API+PG CPU ms/call off / on',
        'of which PG',
        'CPU-bound on/off',
        'errors',
      ],
      rows,
    ),
  );
  if (PAIRED_SECONDS > 0) {
    const before = await cpuOfEach(sides, db);
    const paired = await runLoad<AuditPairedResult>({
      type: 'paired',
      urls: sides.map((side) => side.api.url),
      path,
      body,
      headers,
      warmupMs: WARMUP_SECONDS * 1000,
      durationMs: PAIRED_SECONDS * 1000,
    });
    const after = await cpuOfEach(sides, db);
    const [off, ...on] = paired.latencies;
    const turns = off?.length ?? 0;
    const sorted = (values: readonly number[]) => [...values].sort((a, b) => a - b);
    const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
    const share = PAIRED_SECONDS / (PAIRED_SECONDS + WARMUP_SECONDS);
    const cpuPerCall = (i: number) => {
      const a = after[i]!;
      const b = before[i]!;
      const backends = [...a.backends].reduce((sum, [pid, ms]) => sum + ms - (b.backends.get(pid) ?? 0), 0);
      return `${fixed(((a.api - b.api + backends) * share) / Math.max(1, turns), 3)} / ${fixed((backends * share) / Math.max(1, turns), 3)}`;
    };
    console.log(
      `paired at concurrency 1: ${turns} turns of one call to each side (${PAIRED_SECONDS} s, ${paired.errors} failed turns); added = each call minus the trail-off call of its turn`,
    );
    console.log(
      table(
        [
          'side',
          'p50 ms',
          'mean ms',
          'added p50 ms',
          'added mean ms',
          'added trimmed mean ms (10-90 %)',
          'API+PG CPU ms/call / of which PG',
        ],
        sides.map((side, i) => {
          const latencies = paired.latencies[i] ?? [];
          const added = sorted(latencies.map((l, t) => l - (off?.[t] ?? 0)));
          const trimmed = added.slice(Math.floor(added.length * 0.1), Math.ceil(added.length * 0.9));
          return [
            side.name,
            fixed(percentile(sorted(latencies), 0.5), 3),
            fixed(mean(latencies), 3),
            i === 0 ? '' : fixed(percentile(added, 0.5), 3),
            i === 0 ? '' : fixed(mean(added), 3),
            i === 0 ? '' : fixed(mean(trimmed), 3),
            cpuPerCall(i),
          ];
        }),
      ),
    );
    for (const [i, latencies] of on.entries()) {
      const added = sorted(latencies.map((l, t) => l - (off?.[t] ?? 0)));
      const name = sides[i + 1]?.name ?? '';
      verdicts.push(
        `${verdict(percentile(added, 0.5) <= 0.3)} ${name}: paired added latency at concurrency 1: ${fixed(percentile(added, 0.5), 3)} ms p50, ${fixed(mean(added), 3)} ms mean (≤ 0.3)`,
      );
    }
  }
  for (const line of verdicts) console.log(line);
  console.log(`load average (1, 5, 15 min) before: ${loadBefore}; after: ${loadAverage()} (${cpus} cores)`);
} finally {
  load.send({ type: 'stop' });
  await postgres?.end();
  for (const side of sides) await side.api.stop();
  await platform.close();
  await sim.close();
}
