/**
 * `pnpm bench:budget`: one upstream budget per connector under a backfill with live calls beside it. The Orb
 * simulator enforces BENCH_LIMIT requests per second (a token bucket answering 429 with Retry-After beyond it); a
 * connector backfills BENCH_RECORDS customers (pages of 100) while a caller makes BENCH_LIVE_PER_SECOND live
 * execute calls. Two layouts: one API and one worker in this process (`single`), then two API and two worker
 * processes (`scaled`), the live calls alternating between the APIs. Targets: 429s ≤ 1 % of upstream requests,
 * live-call p95 added wait (over the same call's p50 when nothing else runs) ≤ 250 ms, backfill ≤ 1.15× the time
 * the limit allows for the upstream requests it took.
 *
 *   BENCH_RECORDS=20000        customers to backfill
 *   BENCH_LIMIT=10             the upstream's requests per second (declared with CONNECTOR_RATE_LIMIT_ORB)
 *   BENCH_LIVE_PER_SECOND=1    live calls per second during the backfill
 *   BENCH_LAYOUTS=single,scaled
 *   BENCH_LEARN=1              do not declare the limit: the budget learns it from the 429s
 *
 * Needs the local Postgres, Redis and OpenSearch. Exit code 0 unless something crashed; PASS/MISS lines are
 * informational.
 */
import { ApiProcess } from '../harness/api-process.ts';
import { freePort } from '../harness/free-port.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { WorkerProcess } from '../harness/worker-process.ts';
import { startOrbSimulator } from '../simulators/orb/simulator.ts';
import { fixed, ms, percentile, table, verdict } from './stats.ts';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 20_000);
const LIMIT = Number(process.env.BENCH_LIMIT ?? 10);
const LIVE_PER_SECOND = Number(process.env.BENCH_LIVE_PER_SECOND ?? 1);
const LAYOUTS = (process.env.BENCH_LAYOUTS ?? 'single,scaled').split(',');
const LEARN = process.env.BENCH_LEARN === '1';
const START = '2024-01-01T00:00:00Z';
const ENTITIES = ['customers', 'subscriptions', 'plans', 'invoices'];

interface Outcome {
  layout: string;
  upstream: number;
  refused: number;
  backfillMs: number;
  allowedMs: number;
  baselineP50: number;
  liveP95: number;
  liveCount: number;
}

async function runLayout(layout: string): Promise<Outcome> {
  const sim = await startOrbSimulator({ customers: RECORDS, subscriptionsPerCustomer: 0, rateLimitPerSecond: LIMIT });
  const rateLimits: Record<string, number> = LEARN ? {} : { ORB: LIMIT };
  const scaled = layout === 'scaled';
  const platform: TestPlatform = await startTestPlatform({
    overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {}, rateLimits },
    worker: !scaled,
    env: { RATE_LIMIT_PER_MINUTE: '1000000' },
  });
  const extra = {
    CONNECTOR_BASE_URL_ORB: sim.url,
    RATE_LIMIT_PER_MINUTE: '1000000',
    ...(LEARN ? {} : { CONNECTOR_RATE_LIMIT_ORB: String(LIMIT) }),
  };
  const apis: ApiProcess[] = [];
  const workers: WorkerProcess[] = [];
  try {
    const bases = [platform.url];
    if (scaled) {
      for (let i = 0; i < 2; i++) apis.push(await ApiProcess.start(platform.api.deps.env, extra));
      bases.splice(0, 1, ...apis.map((a) => a.url));
      for (let i = 0; i < 2; i++) {
        const worker = new WorkerProcess(platform.api.deps.env, {
          ...extra,
          WORKER_METRICS_PORT: String(await freePort()),
          LOG_LEVEL: 'warn',
        });
        worker.start();
        workers.push(worker);
      }
    }
    const token = await platform.token();
    const call = (base: string, method: string, path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    // A connector to measure the live call alone (its own budget), then the one that backfills.
    const idle = await createOrb(call, bases[0]!, 'idle');
    const liveCall = async (base: string, id: string) => {
      const t0 = performance.now();
      const response = await call(base, 'POST', `/api/v1/integrations/connectors/${id}/execute`, {
        entity: 'customers',
        action: 'list',
        params: { limit: 1 },
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`live call answered ${response.status}`);
      return performance.now() - t0;
    };
    const baseline: number[] = [];
    for (let i = 0; i < 10; i++) {
      baseline.push(await liveCall(bases[i % bases.length]!, idle));
      await new Promise((r) => setTimeout(r, 1000 / LIMIT));
    }
    await call(bases[0]!, 'DELETE', `/api/v1/integrations/connectors/${idle}`);

    const acceptedBefore = sim.rateLimit!.accepted;
    const refusedBefore = sim.rateLimit!.refused;
    const t0 = performance.now();
    const id = await createOrb(call, bases[0]!, 'backfill');
    const live: number[] = [];
    let done = false;
    const liveLoop = (async () => {
      for (let i = 0; !done; i++) {
        live.push(await liveCall(bases[i % bases.length]!, id));
        await new Promise((r) => setTimeout(r, 1000 / LIVE_PER_SECOND));
      }
    })();
    for (;;) {
      const view = (await (await call(bases[0]!, 'GET', `/api/v1/integrations/connectors/${id}`)).json()) as {
        entities: Record<string, { status: string; running: boolean }>;
      };
      if (ENTITIES.every((e) => view.entities[e]?.status === 'ready' && !view.entities[e]?.running)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const backfillMs = performance.now() - t0;
    done = true;
    await liveLoop;
    const upstream = sim.rateLimit!.accepted - acceptedBefore;
    const refused = sim.rateLimit!.refused - refusedBefore;
    const sorted = [...live].sort((a, b) => a - b);
    return {
      layout,
      upstream: upstream + refused,
      refused,
      backfillMs,
      allowedMs: (upstream / LIMIT) * 1000,
      baselineP50: percentile(
        [...baseline].sort((a, b) => a - b),
        0.5,
      ),
      liveP95: percentile(sorted, 0.95),
      liveCount: live.length,
    };
  } finally {
    for (const worker of workers) await worker.kill('SIGTERM');
    for (const api of apis) await api.stop();
    await platform.close();
    await sim.close();
  }
}

async function createOrb(
  call: (base: string, method: string, path: string, body?: unknown) => Promise<Response>,
  base: string,
  name: string,
): Promise<string> {
  const response = await call(base, 'POST', '/api/v1/integrations/connectors', {
    customer_name: 'bench',
    connector_type: 'Orb',
    name,
    credentials: { api_key: 'orb-test-key' },
    replication_config: { start_date: START },
  });
  if (response.status !== 201) throw new Error(`create answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { connector_id: string }).connector_id;
}

const outcomes: Outcome[] = [];
for (const layout of LAYOUTS) outcomes.push(await runLayout(layout));
console.log(
  `upstream budget: ${RECORDS} records backfilled against an upstream allowing ${LIMIT} req/s (${LEARN ? 'learnt' : 'declared'}), ${LIVE_PER_SECOND} live call/s beside it`,
);
console.log(
  table(
    [
      'layout',
      'upstream req',
      '429s',
      '429 %',
      'backfill s',
      'allowed s',
      'ratio',
      'live p50 idle ms',
      'live p95 ms',
      'added p95 ms',
      'live calls',
    ],
    outcomes.map((o) => [
      o.layout,
      String(o.upstream),
      String(o.refused),
      fixed((o.refused / Math.max(1, o.upstream)) * 100, 2),
      fixed(o.backfillMs / 1000, 1),
      fixed(o.allowedMs / 1000, 1),
      fixed(o.backfillMs / o.allowedMs, 3),
      ms(o.baselineP50),
      ms(o.liveP95),
      ms(o.liveP95 - o.baselineP50),
      String(o.liveCount),
    ]),
  ),
);
for (const o of outcomes) {
  console.log(`${verdict(o.refused / Math.max(1, o.upstream) <= 0.01)} ${o.layout}: 429s ≤ 1 % of upstream requests`);
  console.log(`${verdict(o.liveP95 - o.baselineP50 <= 250)} ${o.layout}: live p95 added wait ≤ 250 ms`);
  console.log(`${verdict(o.backfillMs / o.allowedMs <= 1.15)} ${o.layout}: backfill ≤ 1.15× the time the limit allows`);
}
