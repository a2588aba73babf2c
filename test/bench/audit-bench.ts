/**
 * `pnpm bench:audit`: what the audit trail costs a call. Three API processes on the same services, the trail off,
 * on with a disk flush per entry (AUDIT_COMMIT=sync, the default) and on without (async), answer the same live
 * execute call (an Orb customers list against the simulator) in interleaved rounds, at concurrency 1 (the added
 * latency per call: target ≤ 0.3 ms) and 32 (throughput with the trail over throughput without: target ≥ 0.9;
 * concurrent entries share one INSERT, so one flush).
 *
 *   BENCH_SECONDS=5           measured seconds per side, concurrency and round (after BENCH_WARMUP_SECONDS=1)
 *   BENCH_ROUNDS=3            rounds; the sides alternate within each
 *   BENCH_CONCURRENCY=1,32    concurrencies
 *
 * Needs the local Postgres, Redis and OpenSearch. Exit code 0 unless something crashed; PASS/MISS lines are
 * informational.
 */
import { ApiProcess } from '../harness/api-process.ts';
import { startTestPlatform } from '../harness/platform.ts';
import { startOrbSimulator } from '../simulators/orb/simulator.ts';
import { KeepAliveClient } from './http-client.ts';
import { fixed, ms, runConcurrent, table, verdict } from './stats.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '1,32').split(',').map(Number);

interface Totals {
  count: number;
  latencySum: number;
  elapsedMs: number;
  errors: number;
}

/** The trail off, on with a disk flush per entry (AUDIT_COMMIT=sync, the default), and on without it (async). */
const SIDES = {
  off: { AUDIT_TRAIL: 'off' },
  sync: { AUDIT_TRAIL: 'on', AUDIT_COMMIT: 'sync' },
  async: { AUDIT_TRAIL: 'on', AUDIT_COMMIT: 'async' },
} as const;
type SideName = keyof typeof SIDES;

const sim = await startOrbSimulator({ customers: 20, subscriptionsPerCustomer: 0 });
const platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {} }, worker: false });
const sides: { name: SideName; api: ApiProcess }[] = [];
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
  for (const name of Object.keys(SIDES) as SideName[]) {
    sides.push({ name, api: await ApiProcess.start(platform.api.deps.env, { ...extra, ...SIDES[name] }) });
  }
  const path = `/api/v1/integrations/connectors/${connectorId}/execute`;
  const body = JSON.stringify({ entity: 'customers', action: 'list', params: { limit: 1 } });
  const headers = { authorization: `Bearer ${token}` };

  const rows: string[][] = [];
  const verdicts: string[] = [];
  for (const concurrency of CONCURRENCY) {
    const totals = Object.fromEntries(
      sides.map((side) => [side.name, { count: 0, latencySum: 0, elapsedMs: 0, errors: 0 }]),
    ) as Record<SideName, Totals>;
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const client = new KeepAliveClient(side.api.url, concurrency);
        const call = async () => {
          const answer = await client.post(path, body, headers);
          if (answer.status !== 200) throw new Error(`${answer.status} ${answer.text.slice(0, 200)}`);
        };
        await runConcurrent(call, { concurrency, durationMs: WARMUP_SECONDS * 1000 });
        const samples = await runConcurrent(call, { concurrency, durationMs: SECONDS * 1000 });
        client.close();
        if (samples.firstError) console.error(`${side.name} c=${concurrency}:`, samples.firstError);
        const t = totals[side.name];
        t.count += samples.latencies.length;
        t.latencySum += samples.latencies.reduce((a, b) => a + b, 0);
        t.elapsedMs += samples.elapsedMs;
        t.errors += samples.errors;
      }
    }
    const mean = (t: Totals) => t.latencySum / Math.max(1, t.count);
    const throughput = (t: Totals) => (t.count * 1000) / Math.max(1, t.elapsedMs);
    for (const name of ['sync', 'async'] as const) {
      const added = mean(totals[name]) - mean(totals.off);
      const ratio = throughput(totals[name]) / throughput(totals.off);
      rows.push([
        String(concurrency),
        name,
        ms(mean(totals.off)),
        ms(mean(totals[name])),
        fixed(added, 3),
        fixed(throughput(totals.off), 0),
        fixed(throughput(totals[name]), 0),
        fixed(ratio, 3),
        String(totals[name].errors + totals.off.errors),
      ]);
      if (concurrency === 1) {
        verdicts.push(
          `${verdict(added <= 0.3)} ${name}: added latency at concurrency 1: ${fixed(added, 3)} ms (≤ 0.3)`,
        );
      }
      if (concurrency >= 32) {
        verdicts.push(
          `${verdict(ratio >= 0.9)} ${name}: throughput at concurrency ${concurrency}: ${fixed(ratio, 3)}× (≥ 0.9)`,
        );
      }
    }
  }
  console.log(
    `audit trail on (AUDIT_COMMIT sync | async) vs off: live execute (Orb customers list) on three API processes, ${ROUNDS} round(s) × ${SECONDS} s`,
  );
  console.log(
    table(
      ['concurrency', 'commit', 'mean off ms', 'mean on ms', 'added ms', 'req/s off', 'req/s on', 'on/off', 'errors'],
      rows,
    ),
  );
  for (const line of verdicts) console.log(line);
} finally {
  for (const side of sides) await side.api.stop();
  await platform.close();
  await sim.close();
}
