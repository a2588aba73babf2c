import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiProcess } from '../harness/api-process.ts';
import { entityStatuses, searchAllIds } from '../harness/connector-status.ts';
import { freePort } from '../harness/free-port.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { syncRunsByOutcome } from '../harness/scale-out.ts';
import { WorkerProcess } from '../harness/worker-process.ts';
import { type OrbSimulator, startOrbSimulator } from '../simulators/orb/simulator.ts';

const CONNECTORS = Number(process.env.SCALEOUT_CONNECTORS ?? 6);
const ENTITIES = ['customers', 'subscriptions', 'plans', 'invoices'];
const START = '2024-01-01T00:00:00Z';

/**
 * Issue 17 item 8, the quick variant (CI): 2 API and 2 worker processes on the same Postgres, Redis and OpenSearch.
 * Every entity run executes exactly once across the workers (the workers' own run counters say so: a run started
 * twice would count twice as done, or once as "skipped: superseded"), and a worker killed mid-run is taken over by
 * the other. Throughput is `pnpm bench:scaleout`.
 */
describe('scale-out: 2 API and 2 worker processes on shared services', () => {
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let secondApi: ApiProcess;
  const workers: { process: WorkerProcess; metricsPort: number }[] = [];
  const connectorIds: string[] = [];

  const call = async (base: string, method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${await platform.token()}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  /** Every entity of every connector has finished a run since `since` (as the second API reports it). */
  const allSynced = (since: number) =>
    eventually(async () => {
      for (const id of connectorIds) {
        const response = await call(secondApi.url, 'GET', `/api/v1/integrations/connectors/${id}`);
        const { entities } = (await response.json()) as {
          entities: Record<string, { running: boolean; last_success_at: string | null; status: string }>;
        };
        for (const entity of ENTITIES) {
          const s = entities[entity];
          if (!s || s.running || !s.last_success_at || Date.parse(s.last_success_at) < since) return undefined;
        }
      }
      return true;
    }, 240_000);

  beforeAll(async () => {
    // Upstream latency makes runs last long enough to overlap and to be killed mid-run.
    sim = await startOrbSimulator({ customers: 150, from: START, latencyMs: 15 });
    const overrides = { baseUrls: { ORB: sim.url }, tokenUrls: {} };
    platform = await startTestPlatform({
      overrides,
      worker: false,
      // Both APIs are polled often here: the per-client rate limit is not what this test is about.
      env: { SYNC_INTERVAL: '1h', RATE_LIMIT_PER_MINUTE: '100000000' },
    });
    // A full suite runs beside it on two cores: give the second API time to boot.
    secondApi = await ApiProcess.start(
      platform.api.deps.env,
      { CONNECTOR_BASE_URL_ORB: sim.url },
      { startTimeoutMs: 120_000 },
    );
    for (let i = 0; i < 2; i++) {
      const metricsPort = await freePort();
      const worker = new WorkerProcess(platform.api.deps.env, {
        CONNECTOR_BASE_URL_ORB: sim.url,
        WORKER_METRICS_PORT: String(metricsPort),
        WORKER_LOCK_MS: '2000',
        RECONCILE_INTERVAL: '2s',
        LOG_LEVEL: 'info',
      });
      workers.push({ process: worker, metricsPort });
    }
  }, 120_000);

  afterAll(async () => {
    for (const w of workers) await w.process.kill('SIGKILL');
    await secondApi?.stop();
    await platform?.close();
    await sim?.close();
  });

  it('runs every entity of every connector exactly once across the two workers', async () => {
    const since = Date.now();
    for (const w of workers) w.process.start();
    // Connectors are created through both APIs: each schedules its first sync on the shared queue.
    for (let i = 0; i < CONNECTORS; i++) {
      const base = i % 2 === 0 ? platform.url : secondApi.url;
      const created = await call(base, 'POST', '/api/v1/integrations/connectors', {
        customer_name: `tenant-${i}`,
        connector_type: 'Orb',
        name: 'billing',
        credentials: { api_key: sim.apiKey },
        replication_config: { start_date: START },
      });
      expect(created.status, await created.clone().text()).toBe(201);
      connectorIds.push(((await created.json()) as { connector_id: string }).connector_id);
    }
    await allSynced(since);

    const counts = await Promise.all(workers.map((w) => syncRunsByOutcome(w.metricsPort)));
    const done = counts.reduce((sum, c) => sum + (c.done ?? 0), 0);
    expect(done).toBe(CONNECTORS * ENTITIES.length);
    for (const c of counts) {
      expect(c.skipped ?? 0, JSON.stringify(counts)).toBe(0);
      // Both workers took part.
      expect(c.done ?? 0, JSON.stringify(counts)).toBeGreaterThan(0);
    }
    const expected = new Set(sim.data.customers.map((c) => c.id));
    for (const id of connectorIds) {
      const ids = await searchAllIds(platform, id, 'customers');
      expect(ids.length).toBe(expected.size);
      expect(new Set(ids)).toEqual(expected);
    }
  }, 300_000);

  it('hands the runs of a worker killed mid-run to the other one', async () => {
    const since = Date.now();
    const [victim, survivor] = workers;
    const before = await syncRunsByOutcome(survivor!.metricsPort);
    // A full pass of every connector, triggered through the second API.
    for (const id of connectorIds) {
      const accepted = await call(secondApi.url, 'POST', `/api/v1/integrations/connectors/${id}/sync`, {});
      expect(accepted.status).toBe(202);
    }
    // Kill the victim once it is in the middle of something.
    await eventually(async () => {
      for (const id of connectorIds) {
        const statuses = await entityStatuses(platform, id);
        if (Object.values(statuses).some((s) => s.running)) return true;
      }
      return undefined;
    }, 60_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(await victim!.process.kill('SIGKILL')).toBeNull();

    await allSynced(since);
    const after = await syncRunsByOutcome(survivor!.metricsPort);
    expect(after.done ?? 0).toBeGreaterThan(before.done ?? 0);
    const expected = new Set(sim.data.customers.map((c) => c.id));
    for (const id of connectorIds) {
      const ids = await searchAllIds(platform, id, 'customers');
      expect(new Set(ids)).toEqual(expected);
      expect(ids.length).toBe(expected.size);
    }
  }, 300_000);
});
