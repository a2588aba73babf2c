import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchAllIds, waitForEntity } from '../harness/connector-status.ts';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettingsFrom } from '../harness/orb-connector.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { WorkerProcess } from '../harness/worker-process.ts';
import { type OrbSimulator, startOrbSimulator } from '../simulators/orb/simulator.ts';

/** Rounds of SIGKILL during one sync. CHAOS_ROUNDS=10 for the full run; CI runs fewer. */
const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? 3);
/**
 * Enough records for a sync of two hundred checkpointed pages: the kills land between and inside page
 * writes. The run's length comes from upstream latency (below), not from more records, which would only add CPU.
 */
const RECORDS = Number(process.env.CHAOS_RECORDS ?? 20_000);
/** Orb's page size in a sync (the catalog's read limit). */
const PAGE = 100;
const START = '2023-01-01T00:00:00Z';

describe(`chaos: SIGKILL the worker ${ROUNDS} times during a ${RECORDS}-record sync`, () => {
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let worker: WorkerProcess;
  let connectorId: string;

  beforeAll(async () => {
    // Upstream latency stretches the sync so that every round kills it mid-run: pages alone take 5 s per round.
    sim = await startOrbSimulator({
      customers: RECORDS,
      subscriptionsPerCustomer: 0,
      plans: 1,
      from: START,
      latencyMs: Math.ceil((ROUNDS * 5000) / (RECORDS / PAGE)),
    });
    platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {} }, worker: false });
    worker = new WorkerProcess(platform.api.deps.env, {
      CONNECTOR_BASE_URL_ORB: sim.url,
      WORKER_LOCK_MS: '2000',
      RECONCILE_INTERVAL: '2s',
      LOG_LEVEL: 'info',
    });
    connectorId = await createConnector(platform, {
      customer_name: 'chaos',
      name: 'chaos',
      ...orbSettingsFrom(sim.apiKey, START),
    });
  }, 120_000);

  afterAll(async () => {
    await worker?.kill('SIGKILL');
    await platform?.close();
    await sim?.close();
  });

  it('ends with the index equal to the upstream, without duplicates', async () => {
    const kills: { atRecords: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      worker.start();
      const progressed = await waitForEntity(
        platform,
        connectorId,
        'customers',
        (s) => s.running && s.record_count > (kills.at(-1)?.atRecords ?? 0),
        120_000,
      );
      // Let it run a random moment further, then kill it without warning.
      await new Promise((r) => setTimeout(r, 200 + Math.random() * 1500));
      await worker.kill('SIGKILL');
      kills.push({ atRecords: progressed.record_count });
    }
    // A graceful stop in the middle: SIGTERM checkpoints the page in flight and exits 0.
    worker.start();
    await worker.waitFor('sync progress', 120_000);
    expect(await worker.kill('SIGTERM')).toBe(0);
    expect(worker.output.some((line) => line.includes('worker stopped'))).toBe(true);

    worker.start();
    const done = await waitForEntity(
      platform,
      connectorId,
      'customers',
      (s) => s.status === 'ready' && !s.running,
      300_000,
    );
    const expected = sim.data.customers.map((c) => c.id);
    expect(done.record_count).toBe(expected.length);
    const ids = await searchAllIds(platform, connectorId, 'customers');
    expect(ids.length).toBe(expected.length);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set(expected));
    console.log(
      `chaos: ${ROUNDS} SIGKILLs at ${kills.map((k) => k.atRecords).join(', ')} records; final ${ids.length} documents`,
    );
  }, 600_000);
});
