import { buildApp } from '@conduit/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entityStatuses } from '../harness/connector-status.ts';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettingsFrom } from '../harness/orb-connector.ts';
import { closeInOrder, eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { type OrbSimulator, startOrbSimulator } from '../simulators/orb/simulator.ts';

interface RateBudget {
  limit_per_s: number;
  limit_source: 'documented' | 'learnt';
  used_per_s: number;
  paused_until: string | null;
}

const CUSTOMERS = '/v1/customers';
const list = { entity: 'customers', action: 'list', params: { limit: 1 } };

async function rateBudget(platform: TestPlatform, id: string): Promise<RateBudget> {
  const response = await platform.call('GET', `/api/v1/integrations/connectors/${id}`);
  return ((await response.json()) as { rate_budget: RateBudget }).rate_budget;
}

describe('one upstream budget per connector, shared by every process', () => {
  const LIMIT = 5;
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let second: Awaited<ReturnType<TestPlatform['secondApi']>>;
  let id: string;
  /** Execute through the second API instance (same database, Redis and namespace: another process's budget view). */
  let executeOnSecond: () => Promise<Response>;

  beforeAll(async () => {
    sim = await startOrbSimulator({ customers: 20, subscriptionsPerCustomer: 0, rateLimitPerSecond: LIMIT });
    platform = await startTestPlatform({
      overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {}, rateLimits: { ORB: LIMIT } },
      worker: false,
    });
    id = await createConnector(platform, {
      customer_name: 'budget',
      name: 'shared',
      ...orbSettingsFrom(sim.apiKey, '2024-01-01T00:00:00Z'),
    });
    second = await platform.secondApi();
    const app = buildApp(second.deps);
    executeOnSecond = async () =>
      app.request(`/api/v1/integrations/connectors/${id}/execute`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await platform.token()}`, 'content-type': 'application/json' },
        body: JSON.stringify(list),
      });
  }, 60_000);
  afterAll(async () => {
    sim?.faults.release();
    await closeInOrder(second, platform, sim);
  });

  it('paces live calls from two API instances to the limit together: no 429 from an upstream enforcing it', async () => {
    const refusedBefore = sim.rateLimit!.refused;
    const t0 = Date.now();
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => platform.call('POST', `/api/v1/integrations/connectors/${id}/execute`, list)),
      ...Array.from({ length: 10 }, () => executeOnSecond()),
    ]);
    const elapsed = Date.now() - t0;
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(sim.rateLimit!.refused - refusedBefore).toBe(0);
    // 20 calls at 5 per second, the first one at once: at least 19 intervals of 200 ms.
    expect(elapsed).toBeGreaterThanOrEqual(19 * (1000 / LIMIT) - 50);
    const budget = await rateBudget(platform, id);
    expect(budget).toMatchObject({ limit_per_s: LIMIT, limit_source: 'documented', paused_until: null });
    expect(budget.used_per_s).toBeLessThanOrEqual(LIMIT + 1);
    // The metrics say the same per kind (never per connector id).
    const metrics = await (await fetch(`${platform.url}/metrics`)).text();
    expect(metrics).toMatch(/conduit_upstream_budget\{[^}]*kind="Orb",measure="limit_per_s"[^}]*\} 5\b/);
    expect(metrics).toMatch(/conduit_upstream_budget_wait_seconds_count\{[^}]*lane="live"[^}]*\} \d+/);
    expect(metrics).not.toContain(id);
  }, 30_000);

  it('a 429 with Retry-After pauses the whole connector, in every process, until then', async () => {
    sim.faults.add({ status: 429, count: 1, retryAfterSeconds: 2, pathIncludes: CUSTOMERS });
    const first = platform.call('POST', `/api/v1/integrations/connectors/${id}/execute`, list);
    const pausedUntil = await eventually(
      async () => (await rateBudget(platform, id)).paused_until ?? undefined,
      10_000,
      20,
    );
    const pauseEnds = Date.parse(pausedUntil);
    const limitedAt = sim.faults.requests.filter((r) => r.path === CUSTOMERS).at(-1)!.at;
    // Another process's call made during the pause waits for its end before it reaches the upstream.
    const other = await executeOnSecond();
    expect(other.status).toBe(200);
    expect((await first).status).toBe(200);
    const during = sim.faults.requests.filter((r) => r.path === CUSTOMERS && r.at > limitedAt && r.at < pauseEnds - 20);
    expect(during).toEqual([]);
    expect(Date.now()).toBeGreaterThanOrEqual(pauseEnds - 20);
  }, 30_000);
});

describe('an unknown limit is learnt', () => {
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let id: string;

  beforeAll(async () => {
    sim = await startOrbSimulator({ customers: 5, subscriptionsPerCustomer: 0 });
    platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {} }, worker: false });
    id = await createConnector(platform, {
      customer_name: 'budget',
      name: 'learnt',
      ...orbSettingsFrom(sim.apiKey, '2024-01-01T00:00:00Z'),
    });
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await sim?.close();
  });

  it('starts from a cautious rate, and a 429 lowers it for every process', async () => {
    // Orb publishes no limit: the budget starts at 10 per second and learns.
    expect(await rateBudget(platform, id)).toMatchObject({ limit_per_s: 10, limit_source: 'learnt' });
    sim.faults.add({ status: 429, count: 1, retryAfterSeconds: 1, pathIncludes: CUSTOMERS });
    const answer = await platform.call('POST', `/api/v1/integrations/connectors/${id}/execute`, list);
    expect(answer.status).toBe(200);
    expect((await rateBudget(platform, id)).limit_per_s).toBe(7);
  }, 30_000);
});

describe('live calls come first', () => {
  const LIMIT = 5;
  let sim: OrbSimulator;
  let platform: TestPlatform;

  beforeAll(async () => {
    sim = await startOrbSimulator({ customers: 3_000, subscriptionsPerCustomer: 0, rateLimitPerSecond: LIMIT });
    platform = await startTestPlatform({
      overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {}, rateLimits: { ORB: LIMIT } },
    });
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await sim?.close();
  });

  it('a live call during a backfill waits at most one slot for the upstream, never behind sync pages', async () => {
    const id = await createConnector(platform, {
      customer_name: 'budget',
      name: 'backfill',
      ...orbSettingsFrom(sim.apiKey, '2024-01-01T00:00:00Z'),
    });
    await eventually(
      async () => ((await entityStatuses(platform, id)).customers?.running ? true : undefined),
      30_000,
      100,
    );
    for (let i = 0; i < 5; i++) {
      const answer = await platform.call('POST', `/api/v1/integrations/connectors/${id}/execute`, list);
      expect(answer.status).toBe(200);
    }
    expect((await entityStatuses(platform, id)).customers?.running).toBe(true);
    // Every wait the budget assigned a live call (this API process's own histogram) is within one interval (200 ms)
    // and a margin: a call queued behind the backfill's pages would be assigned several.
    const waits = await platform.api.deps.metrics.budgetWait.get();
    const live = waits.values.filter((v) => v.labels.lane === 'live');
    const count = live.find((v) => v.metricName?.endsWith('_count'))?.value ?? 0;
    const within =
      live.find((v) => v.metricName?.endsWith('_bucket') && (v.labels as Record<string, unknown>).le === 0.25)?.value ??
      0;
    expect(count).toBeGreaterThanOrEqual(5);
    expect(within).toBe(count);
    expect(sim.rateLimit!.refused).toBe(0);
  }, 60_000);
});
