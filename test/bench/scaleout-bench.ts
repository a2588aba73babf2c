/**
 * pnpm bench:scaleout: sync throughput of 1 worker process vs 2 on the same Postgres, Redis and
 * OpenSearch, for a sync of many connectors. The upstream (Orb simulator with per-request latency) runs in its
 * own process. Each round: a fresh platform (own database and namespace), N connectors created with no worker
 * running, then W workers start and the clock runs until every entity of every connector has synced.
 * Knobs: SCALEOUT_CONNECTORS (12), SCALEOUT_CUSTOMERS (100 per connector), SCALEOUT_LATENCY_MS (150, a real
 * API's round trip: entity runs wait on the upstream, which is what more workers overlap), WORKER_CONCURRENCY per
 * worker (2). With a near-zero latency the sync is CPU-bound, and on a 2-core machine shared with OpenSearch and
 * Postgres a second worker process cannot add throughput.
 */
import { entityStatuses } from '../harness/connector-status.ts';
import { freePort } from '../harness/free-port.ts';
import { startTestPlatform } from '../harness/platform.ts';
import { syncRunsByOutcome } from '../harness/scale-out.ts';
import { WorkerProcess } from '../harness/worker-process.ts';
import { spawnOrbUpstream } from './orb-upstream-process.ts';
import { fixed, table, verdict } from './stats.ts';

const CONNECTORS = Number(process.env.SCALEOUT_CONNECTORS ?? 12);
const CONCURRENCY = process.env.WORKER_CONCURRENCY ?? '2';
const ENTITIES = ['customers', 'subscriptions', 'plans', 'invoices'];
const START = '2024-01-01T00:00:00Z';

const upstream = await spawnOrbUpstream(process.env);

interface Round {
  workers: number;
  seconds: number;
  records: number;
  runsDone: number;
  runsSkipped: number;
}

async function round(workerCount: number): Promise<Round> {
  const platform = await startTestPlatform({
    overrides: { baseUrls: { ORB: upstream.url }, tokenUrls: {} },
    worker: false,
    env: { LOG_LEVEL: 'warn', SYNC_INTERVAL: '1h', RATE_LIMIT_PER_MINUTE: '100000000' },
  });
  const workers: { process: WorkerProcess; metricsPort: number }[] = [];
  try {
    const ids: string[] = [];
    for (let i = 0; i < CONNECTORS; i++) {
      const created = await platform.call('POST', '/api/v1/integrations/connectors', {
        customer_name: `tenant-${i}`,
        connector_type: 'Orb',
        name: 'billing',
        credentials: { api_key: upstream.apiKey },
        replication_config: { start_date: START },
      });
      if (created.status !== 201) throw new Error(`create: ${created.status} ${await created.text()}`);
      ids.push(((await created.json()) as { connector_id: string }).connector_id);
    }
    for (let w = 0; w < workerCount; w++) {
      const metricsPort = await freePort();
      workers.push({
        metricsPort,
        process: new WorkerProcess(platform.api.deps.env, {
          CONNECTOR_BASE_URL_ORB: upstream.url,
          WORKER_METRICS_PORT: String(metricsPort),
          WORKER_CONCURRENCY: CONCURRENCY,
          LOG_LEVEL: 'warn',
        }),
      });
    }
    const started = performance.now();
    for (const w of workers) w.process.start();
    let records = 0;
    for (;;) {
      let pending = 0;
      records = 0;
      for (const id of ids) {
        const statuses = await entityStatuses(platform, id);
        for (const entity of ENTITIES) {
          const s = statuses?.[entity];
          if (!s?.last_success_at || s.running) pending++;
          records += s?.record_count ?? 0;
        }
      }
      if (pending === 0) break;
      if (performance.now() - started > 900_000) throw new Error('the sync did not finish in 15 minutes');
      const dead = workers.find((w) => w.process.exitCode !== null);
      if (dead) throw new Error(`a worker exited:\n${dead.process.output.slice(-10).join('\n')}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const seconds = (performance.now() - started) / 1000;
    const counts = await Promise.all(workers.map((w) => syncRunsByOutcome(w.metricsPort)));
    return {
      workers: workerCount,
      seconds,
      records,
      runsDone: counts.reduce((s, c) => s + (c.done ?? 0), 0),
      runsSkipped: counts.reduce((s, c) => s + (c.skipped ?? 0), 0),
    };
  } finally {
    for (const w of workers) await w.process.kill('SIGTERM');
    await platform.close();
  }
}

try {
  console.log(
    `scale-out: ${CONNECTORS} Orb connectors x ${ENTITIES.length} entities, upstream latency ` +
      `${process.env.SCALEOUT_LATENCY_MS ?? 150} ms, WORKER_CONCURRENCY=${CONCURRENCY} per worker`,
  );
  const one = await round(1);
  const two = await round(2);
  const rate = (r: Round) => r.records / r.seconds;
  console.log(
    table(
      ['workers', 'sync s', 'records', 'records/s', 'entity runs done', 'runs skipped (duplicates)'],
      [one, two].map((r) => [
        String(r.workers),
        r.seconds.toFixed(1),
        String(r.records),
        String(Math.round(rate(r))),
        String(r.runsDone),
        String(r.runsSkipped),
      ]),
    ),
  );
  const speedup = rate(two) / rate(one);
  const expectedRuns = CONNECTORS * ENTITIES.length;
  console.log(`  ${verdict(speedup >= 1.6)}  2 workers / 1 worker throughput ${fixed(speedup)} >= 1.6`);
  console.log(
    `  ${verdict(one.runsDone === expectedRuns && two.runsDone === expectedRuns && two.runsSkipped === 0)}  ` +
      `every entity run executed once (${two.runsDone} of ${expectedRuns} with 2 workers, ${two.runsSkipped} duplicates)`,
  );
} finally {
  upstream.process.kill('SIGTERM');
}
process.exit(0);
