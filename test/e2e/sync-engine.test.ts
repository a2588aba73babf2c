import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connectorSchedulerId } from '@conduit/queues';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterAll } from '../harness/cleanups.ts';
import { entityStatuses, searchAllIds, waitForEntity } from '../harness/connector-status.ts';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettingsFrom, startOrbSimulatorPlatform } from '../harness/orb-connector.ts';
import { eventually, type TestPlatform } from '../harness/platform.ts';
import { testServices } from '../harness/services.ts';
import { TcpProxy } from '../harness/tcp-proxy.ts';
import type { OrbSimulator } from '../simulators/orb/simulator.ts';

const START = '2024-01-01T00:00:00Z';

const createOrbConnector = (platform: TestPlatform, sim: OrbSimulator, name: string) =>
  createConnector(platform, { customer_name: 'sync-tests', name, ...orbSettingsFrom(sim.apiKey, START) });

const expectedCustomers = (sim: OrbSimulator) =>
  sim.data.customers.filter((c) => Date.parse(c.created_at) >= Date.parse(START)).map((c) => c.id);

describe('replication engine', () => {
  const cleanups = cleanupsAfterAll();

  it('an incremental run picks up what changed upstream, and only that', async () => {
    const { sim, platform } = await startOrbSimulatorPlatform(cleanups, { customers: 300 });
    const id = await createOrbConnector(platform, sim, 'incremental');
    const first = await waitForEntity(platform, id, 'customers', (s) => s.status === 'ready');
    expect(first.record_count).toBe(expectedCustomers(sim).length);

    const now = Date.now();
    for (let i = 0; i < 3; i++) {
      sim.data.customers.push({
        ...sim.data.customers[0]!,
        id: `cus_new_${i}`,
        name: `Newcomer ${i}`,
        created_at: new Date(now + i * 1000).toISOString(),
      });
    }
    const before = sim.faults.requests.length;
    expect(
      (await platform.call('POST', `/api/v1/integrations/connectors/${id}/sync`, { entity: 'customers' })).status,
    ).toBe(202);
    const second = await waitForEntity(
      platform,
      id,
      'customers',
      (s) => s.last_success_at !== first.last_success_at && !s.running,
    );
    expect(second.record_count).toBe(first.record_count + 3);
    expect((await searchAllIds(platform, id, 'customers')).sort()).toEqual(expectedCustomers(sim).sort());

    // The second run asked only for records created since the cursor (minus the lookback window).
    const reads = sim.faults.requests.slice(before).filter((r) => r.path === '/v1/customers');
    expect(reads.length).toBe(1);
    const since = new URLSearchParams(reads[0]!.query).get('created_at[gte]')!;
    const previousMax = Math.max(
      ...sim.data.customers.filter((c) => !c.id.startsWith('cus_new')).map((c) => Date.parse(c.created_at)),
    );
    expect(Date.parse(since)).toBe(previousMax - 60 * 60 * 1000);
    const finished = platform.logLines.filter(
      (l) => l.includes('sync run finished') && l.includes('"entity":"customers"'),
    );
    const lastRun = JSON.parse(finished.at(-1)!) as { records: number };
    expect(lastRun.records).toBeLessThan(10);
  });

  it('rides out a 429 storm, honouring Retry-After', async () => {
    const { sim, platform } = await startOrbSimulatorPlatform(cleanups, { customers: 120 });
    const id = await createOrbConnector(platform, sim, 'storm');
    await waitForEntity(platform, id, 'customers', (s) => s.status === 'ready');
    sim.faults.add({ status: 429, count: 12, retryAfterSeconds: 1, pathIncludes: '/v1/customers' });
    const t0 = Date.now();
    await platform.call('POST', `/api/v1/integrations/connectors/${id}/sync`, { entity: 'customers' });
    const status = await waitForEntity(
      platform,
      id,
      'customers',
      (s) => s.status === 'ready' && !s.running && Date.parse(s.last_success_at!) > t0,
    );
    expect(status.record_count).toBe(expectedCustomers(sim).length);
    const throttled = sim.faults.requests.filter((r) => r.path === '/v1/customers' && r.at >= t0);
    // 12 throttled answers and at least one success; consecutive attempts at least ~1 s apart (Retry-After: 1).
    expect(throttled.length).toBeGreaterThanOrEqual(13);
    const gaps = throttled.slice(1, 12).map((r, i) => r.at - throttled[i]!.at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(900);
  }, 120_000);

  it('shows failed while OpenSearch is down, keeps live actions working, and recovers when it returns', async () => {
    const services = await testServices();
    const target = new URL(services.opensearchUrl);
    const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port) });
    const address = await proxy.listen();
    const { sim, platform } = await startOrbSimulatorPlatform(
      cleanups,
      { customers: 60 },
      { env: { OPENSEARCH_URL: `http://${address}` } },
    );
    cleanups.push(() => proxy.close());
    proxy.down();
    const id = await createOrbConnector(platform, sim, 'os-down');
    const failed = await waitForEntity(platform, id, 'customers', (s) => s.status === 'failed');
    expect(failed.error).toBeTruthy();
    const search = await platform.call('POST', `/api/v1/integrations/connectors/${id}/execute`, {
      entity: 'customers',
      action: 'search',
      params: { query: {} },
    });
    expect(search.status).toBe(503);
    expect(((await search.json()) as { code: string }).code).toBe('search_unavailable');
    // A search by id is a lookup (`_mget`), which fails the same way.
    const byId = await platform.call('POST', `/api/v1/integrations/connectors/${id}/execute`, {
      entity: 'customers',
      action: 'search',
      params: { query: { filter: { eq: { id: 'cus_1' } } } },
    });
    expect(byId.status).toBe(503);
    expect(((await byId.json()) as { code: string }).code).toBe('search_unavailable');
    const live = await platform.call('POST', `/api/v1/integrations/connectors/${id}/execute`, {
      entity: 'customers',
      action: 'list',
      params: {},
    });
    expect(live.status).toBe(200);

    proxy.up();
    const recovered = await waitForEntity(platform, id, 'customers', (s) => s.status === 'ready', 120_000);
    expect(recovered.record_count).toBe(expectedCustomers(sim).length);
    expect(recovered.error).toBeNull();
  }, 180_000);

  it('resumes after Redis restarts mid-sync', async () => {
    const port = 16_000 + Math.floor(Math.random() * 2000);
    const startRedis = async () => {
      const server = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      await new Promise((r) => setTimeout(r, 300));
      return server;
    };
    let redis = await startRedis();
    // Cleanups run in reverse: the platform closes while its Redis is still up.
    cleanups.push(async () => {
      redis.kill('SIGKILL');
    });
    const { sim, platform } = await startOrbSimulatorPlatform(
      cleanups,
      { customers: 6000 },
      { env: { REDIS_URL: `redis://127.0.0.1:${port}/0`, RECONCILE_INTERVAL: '1s' } },
    );
    const id = await createOrbConnector(platform, sim, 'redis-restart');
    await waitForEntity(platform, id, 'customers', (s) => s.running && s.record_count > 0);
    redis.kill('SIGKILL');
    await once(redis, 'exit');
    await new Promise((r) => setTimeout(r, 500));
    redis = await startRedis();
    const done = await waitForEntity(platform, id, 'customers', (s) => s.status === 'ready', 120_000);
    expect(done.record_count).toBe(expectedCustomers(sim).length);
    expect((await searchAllIds(platform, id, 'customers')).length).toBe(expectedCustomers(sim).length);
    expect((await entityStatuses(platform, id)).customers?.error).toBeNull();
    // The schedule Redis lost is back (the reconciler re-creates it from Postgres).
    const schedule = await eventually(() =>
      platform.api.deps.scheduler.queue.getJobScheduler(connectorSchedulerId(id)),
    );
    expect(schedule?.every).toBe(3_600_000);
  }, 180_000);
});
