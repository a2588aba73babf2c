import { beforeAll, describe, expect, it } from 'vitest';
import { cleanupsAfterAll } from '../harness/cleanups.ts';
import { waitForEntity } from '../harness/connector-status.ts';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettingsFrom, startOrbSimulatorPlatform } from '../harness/orb-connector.ts';
import { eventually, type TestPlatform } from '../harness/platform.ts';
import type { Fault } from '../simulators/kit/faults.ts';
import type { OrbSimulator } from '../simulators/orb/simulator.ts';

interface Problem {
  status: number;
  code: string;
  upstream?: { status: number | null; body: string | null };
}

const CUSTOMERS = '/v1/customers';

/**
 * One retry decision, seen through the API: each kind of upstream failure is retried (and how) or answered at once,
 * and the live call's answer says which. The Orb simulator fails on demand; `UPSTREAM_TIMEOUT_MS` is short so a
 * held answer is a timeout, yet long enough that a busy machine's slow answer never is (each test counts calls).
 */
describe('one retry decision: live calls', () => {
  const cleanups = cleanupsAfterAll();
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let id: string;

  beforeAll(async () => {
    ({ sim, platform } = await startOrbSimulatorPlatform(
      cleanups,
      { customers: 5, subscriptionsPerCustomer: 0 },
      { worker: false, env: { UPSTREAM_TIMEOUT_MS: '2000' } },
    ));
    id = await createConnector(platform, {
      customer_name: 'retry',
      name: 'decision',
      ...orbSettingsFrom(sim.apiKey, '2024-01-01T00:00:00Z'),
    });
    cleanups.push(async () => sim.faults.release());
  }, 60_000);

  /** Lists customers live with `fault` planned; the answer, how many calls reached the upstream and how long it took. */
  async function listWith(fault: Omit<Fault, 'pathIncludes'>, connectorId = id) {
    sim.faults.clear();
    sim.faults.add({ ...fault, pathIncludes: CUSTOMERS });
    const before = sim.faults.requests.length;
    const t0 = Date.now();
    const response = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'customers',
      action: 'list',
      params: { limit: 2 },
    });
    const elapsedMs = Date.now() - t0;
    const calls = sim.faults.requests.slice(before).filter((r) => r.path === CUSTOMERS).length;
    sim.faults.clear();
    return { response, body: (await response.json()) as Problem & { data?: unknown[] }, calls, elapsedMs };
  }

  it.each([400, 422, 409])(
    'an upstream %i is permanent: one call, 400 upstream_rejected with its status and body',
    async (status) => {
      const body = { type: 'https://docs.withorb.com/reference/error-responses', status, title: `refused ${status}` };
      const { response, body: problem, calls } = await listWith({ status, count: 5, body });
      expect(calls).toBe(1);
      expect(response.status).toBe(400);
      expect(problem.code).toBe('upstream_rejected');
      expect(problem.upstream?.status).toBe(status);
      expect(problem.upstream?.body).toContain(`refused ${status}`);
    },
  );

  it.each([401, 403])('an upstream %i refuses the credentials: one call, 502 upstream_auth_failed', async (status) => {
    const { response, body, calls } = await listWith({ status, count: 5 });
    expect(calls).toBe(1);
    expect(response.status).toBe(502);
    expect(body.code).toBe('upstream_auth_failed');
  });

  it('an upstream 404 is permanent: one call, 404 upstream_not_found', async () => {
    const { response, body, calls } = await listWith({ status: 404, count: 5 });
    expect(calls).toBe(1);
    expect(response.status).toBe(404);
    expect(body.code).toBe('upstream_not_found');
  });

  it('a 429 with Retry-After is waited out for as long as it says, then tried again', async () => {
    const { response, calls, elapsedMs } = await listWith({ status: 429, count: 1, retryAfterSeconds: 1 });
    expect(response.status).toBe(200);
    expect(calls).toBe(2);
    expect(elapsedMs).toBeGreaterThanOrEqual(950);
  });

  it('a 429 without Retry-After is retried with backoff', async () => {
    const { response, calls } = await listWith({ status: 429, count: 2 });
    expect(response.status).toBe(200);
    expect(calls).toBe(3);
  });

  it('a 5xx burst is retried until the upstream answers', async () => {
    const { response, calls } = await listWith({ status: 503, count: 2 });
    expect(response.status).toBe(200);
    expect(calls).toBe(3);
  });

  it('a 5xx that lasts is a 502 upstream_error once the attempts run out', async () => {
    const { response, body, calls } = await listWith({ status: 500, count: 100 });
    expect(calls).toBe(6);
    expect(response.status).toBe(502);
    expect(body.code).toBe('upstream_error');
    expect(body.upstream?.status).toBe(500);
  }, 30_000);

  it('an upstream that does not answer in time is tried again', async () => {
    const { response, calls } = await listWith({ hold: true, count: 1 });
    expect(response.status).toBe(200);
    expect(calls).toBe(2);
  });

  it('a connection reset is tried again', async () => {
    const { response, calls } = await listWith({ reset: true, count: 2 });
    expect(response.status).toBe(200);
    expect(calls).toBe(3);
  });

  it('a 429 asking for longer than a call may wait is handed to the caller: 429 rate_limited with Retry-After, and the connector stays paused', async () => {
    // Its own connector: the pause it causes holds every call of the connector for two minutes.
    const paused = await createConnector(platform, {
      customer_name: 'retry',
      name: 'paused',
      ...orbSettingsFrom(sim.apiKey, '2024-01-01T00:00:00Z'),
    });
    const { response, body, calls } = await listWith({ status: 429, count: 1, retryAfterSeconds: 120 }, paused);
    expect(calls).toBe(1);
    expect(response.status).toBe(429);
    expect(body.code).toBe('rate_limited');
    expect(response.headers.get('retry-after')).toBe('120');
    // The next call does not reach the upstream at all: the connector's budget is paused for everyone.
    const next = await listWith({ status: 500, count: 0 }, paused);
    expect(next.response.status).toBe(429);
    expect(Number(next.response.headers.get('retry-after'))).toBeGreaterThan(100);
    expect(next.calls).toBe(0);
  });
});

describe('one retry decision: sync and webhook jobs', () => {
  const cleanups = cleanupsAfterAll();
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let id: string;

  beforeAll(async () => {
    ({ sim, platform } = await startOrbSimulatorPlatform(cleanups, { customers: 10, subscriptionsPerCustomer: 0 }));
    id = await createConnector(platform, {
      customer_name: 'retry',
      name: 'sync',
      ...orbSettingsFrom(sim.apiKey, '2024-01-01T00:00:00Z'),
    });
    await waitForEntity(platform, id, 'customers', (s) => s.status === 'ready' && !s.running);
  }, 90_000);

  /** The entity job's state once it has left `active`: `undefined` when it ended (removed), `delayed` when retried. */
  async function entityJobAfterRun(entity: string): Promise<string | undefined> {
    const queue = platform.api.deps.scheduler.queue;
    return eventually(async () => {
      const job = await queue.getJob(`entity:${id}:${entity}`);
      if (!job) return 'gone';
      const state = await job.getState();
      return state === 'active' || state === 'waiting' ? undefined : state;
    }, 30_000).then((s) => (s === 'gone' ? undefined : s));
  }

  it('an upstream 400 ends the run at once: failed with the upstream reason, no retry; the next scheduled run tries again', async () => {
    const reason = 'created_at[gte] is not a valid filter for this account';
    sim.faults.add({ status: 400, count: 1_000, pathIncludes: CUSTOMERS, body: { status: 400, title: reason } });
    const t0 = Date.now();
    expect(
      (await platform.call('POST', `/api/v1/integrations/connectors/${id}/sync`, { entity: 'customers' })).status,
    ).toBe(202);
    const failed = await waitForEntity(platform, id, 'customers', (s) => s.status === 'failed' && !s.running);
    expect(failed.error).toContain(reason);
    expect(failed.error).toContain('400');
    // Not delayed for a retry: the job ended (UnrecoverableError) and is gone.
    expect(await entityJobAfterRun('customers')).toBeUndefined();
    expect(sim.faults.requests.filter((r) => r.path === CUSTOMERS && r.at >= t0)).toHaveLength(1);

    // The upstream accepts the request again; the next scheduled run (what the connector's job scheduler adds)
    // runs and heals the entity.
    sim.faults.clear();
    await platform.api.deps.scheduler.syncConnector(id);
    const healed = await waitForEntity(platform, id, 'customers', (s) => s.status === 'ready' && !s.running);
    expect(healed.error).toBeNull();
  }, 60_000);

  it('a 5xx that outlasts the HTTP retries fails the run and the job is retried with backoff', async () => {
    sim.faults.add({ status: 502, count: 1_000, pathIncludes: CUSTOMERS });
    expect(
      (await platform.call('POST', `/api/v1/integrations/connectors/${id}/sync`, { entity: 'customers' })).status,
    ).toBe(202);
    const failed = await waitForEntity(platform, id, 'customers', (s) => s.status === 'failed' && !s.running);
    expect(failed.error).toContain('502');
    expect(await entityJobAfterRun('customers')).toBe('delayed');
    sim.faults.clear();
    await waitForEntity(platform, id, 'customers', (s) => s.status === 'ready' && !s.running, 60_000);
  }, 90_000);

  it('a webhook whose re-read the upstream refuses (400) fails once and is not retried', async () => {
    const secret = sim.webhooks.newSecret();
    const patched = await platform.call('PATCH', `/api/v1/integrations/connectors/${id}`, { webhook_secret: secret });
    expect(patched.status).toBe(200);
    sim.webhooks.sender.subscribe(`${platform.url}/api/v1/integrations/connectors/${id}/webhooks`, secret);
    sim.faults.add({ status: 400, count: 1_000, pathIncludes: `${CUSTOMERS}/` });
    const t0 = Date.now();
    const change = await sim.webhooks.edit();
    expect(change.status).toBe(202);
    const queue = platform.api.deps.webhookQueue.queue;
    const job = await eventually(async () => {
      const [found] = await queue.getJobs(['failed', 'delayed']);
      return found;
    }, 30_000);
    expect(await job.getState()).toBe('failed');
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toContain('400');
    expect(sim.faults.requests.filter((r) => r.path === `${CUSTOMERS}/${change.key}` && r.at >= t0)).toHaveLength(1);
    sim.faults.clear();
  }, 60_000);
});
