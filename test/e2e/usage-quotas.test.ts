import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inheritedEnv } from '../harness/child-env.ts';
import { entityStatuses, searchAllIds, waitForIdleEntities } from '../harness/connector-status.ts';
import { createConnector, simulatorConnector } from '../harness/create-connector.ts';
import { ORB_ENTITIES } from '../harness/orb-connector.ts';
import { ALL_ENTITIES_AT_ONCE, eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import { startOrb } from '../simulators/orb/simulator.ts';
import { tasklaneDefinition } from '../simulators/tasklane/definition.ts';

/**
 * Usage per organization and its quotas (docs/operations.md, "Usage and quotas"): one organization is flooded past
 * each quota (records, connectors, requests per day) and gets the clear error each time, its paused sync resumes
 * with nothing lost once the operator raises the quota (admin CLI), and another organization is unaffected.
 */
const ADMIN = fileURLToPath(new URL('../../apps/api/src/cli/admin.ts', import.meta.url));

interface Problem {
  status: number;
  code: string;
  detail: string;
  quota?: { name: string; limit: number; used: number };
}

let platform: TestPlatform;
let sim: SimulatorHandle;
let other: { organizationId: string; token: string };
let flooded = '';
let spared = '';

/** The admin CLI against the platform's database, as an operator runs it; its JSON output. */
function admin(...args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [ADMIN, ...args],
      { env: { ...inheritedEnv(), DATABASE_URL: platform.api.deps.env.DATABASE_URL }, timeout: 30_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
    );
  });
}

const asOther = { authorization: () => `Bearer ${other.token}` };
const callAsOther = (method: string, path: string, body?: unknown) =>
  platform.call(method, path, body, { authorization: asOther.authorization() });

const expectedTotal = () => ORB_ENTITIES.reduce((sum, entity) => sum + sim.expectedKeys(entity).length, 0);

beforeAll(async () => {
  sim = await startOrb({ size: 6 });
  platform = await startTestPlatform({
    overrides: { baseUrls: { ORB: sim.baseUrl }, tokenUrls: {}, rateLimits: { ORB: 1000 } },
    // The deployment's defaults: generous for everyone; the flooded organization gets its own below.
    env: {
      ...ALL_ENTITIES_AT_ONCE,
      QUOTA_DEFAULTS: 'connectors=10,records=100000,requests_per_day=100000',
      // The receiver of the deliveries below listens on loopback over http.
      WEBHOOK_ALLOW_HTTP: '1',
      WEBHOOK_ALLOW_PRIVATE: '1',
    },
  });
  other = await platform.anotherOrganization();
  await admin('set-quota', platform.organizationId, 'records', '5');
  await admin('set-quota', platform.organizationId, 'connectors', '1');
  await admin('set-quota', platform.organizationId, 'definitions', '0');
}, 120_000);

afterAll(async () => {
  await platform?.close();
  await sim?.close();
});

describe('usage and quotas per organization', () => {
  it('pauses a sync at the records quota with the entity saying why, while another organization syncs', async () => {
    flooded = await createConnector(platform, simulatorConnector(sim, 'flooded'));
    spared = await createConnector(platform, simulatorConnector(sim, 'spared'), other.token);
    await eventually(async () => {
      const statuses = await statusesOf(spared);
      return ORB_ENTITIES.every((e) => statuses[e]?.status === 'ready' && !statuses[e]?.running) ? true : undefined;
    }, 90_000);
    const paused = await eventually(async () => {
      const statuses = await entityStatuses(platform, flooded);
      const held = Object.values(statuses).filter((s) => s.error?.includes('records quota'));
      return held.length > 0 && Object.values(statuses).every((s) => !s.running) ? statuses : undefined;
    }, 60_000);
    const held = Object.values(paused).find((s) => s.error?.includes('records quota'))!;
    expect(held.error).toMatch(/^paused: the organization's records quota is 5 and \d+ are used; the sync resumes/);
    expect(Object.values(paused).some((s) => s.status !== 'ready')).toBe(true);
    // The other organization's copy is whole.
    for (const entity of ORB_ENTITIES) {
      const statuses = await statusesOf(spared);
      expect(statuses[entity]?.record_count, entity).toBe(sim.expectedKeys(entity).length);
    }
  }, 120_000);

  it('resumes the paused sync once the operator raises the quota, with nothing lost', async () => {
    const shown = await admin('set-quota', platform.organizationId, 'records', '1000');
    expect(shown.quotas).toMatchObject({ records: { limit: 1000 }, connectors: { limit: 1, used: 1 } });
    await waitForIdleEntities(platform, flooded, ORB_ENTITIES);
    const statuses = await entityStatuses(platform, flooded);
    let total = 0;
    for (const entity of ORB_ENTITIES) {
      expect(statuses[entity]?.error, entity).toBeNull();
      const ids = await searchAllIds(platform, flooded, entity, 'id');
      expect(ids.sort(), entity).toEqual([...sim.expectedKeys(entity)].sort());
      total += ids.length;
    }
    expect(total).toBe(expectedTotal());
  }, 120_000);

  it('refuses a connector past the connectors quota with 403 quota_exceeded naming it', async () => {
    const refused = await platform.call('POST', '/api/v1/integrations/connectors', simulatorConnector(sim, 'second'));
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    const problem = (await refused.json()) as Problem;
    expect(problem).toMatchObject({ code: 'quota_exceeded', quota: { name: 'connectors', limit: 1, used: 1 } });
    expect(problem.detail).toBe("the organization's connectors quota is 1 and 1 is used");
    const list = (await (await platform.call('GET', '/api/v1/integrations/connectors')).json()) as { data: unknown[] };
    expect(list.data).toHaveLength(1);
    // The other organization creates a second one.
    const second = await callAsOther('POST', '/api/v1/integrations/connectors', simulatorConnector(sim, 'b2'));
    expect(second.status).toBe(201);
  });

  it('refuses a connector definition past the definitions quota; the other organization defines it', async () => {
    const refused = await platform.call(
      'POST',
      '/api/v1/connector-definitions',
      tasklaneDefinition('https://tasklane.example/api'),
    );
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      code: 'quota_exceeded',
      quota: { name: 'definitions', limit: 0, used: 0 },
    });
    const listed = (await (await platform.call('GET', '/api/v1/connector-definitions')).json()) as { data: unknown[] };
    expect(listed.data).toEqual([]);
    const other = await callAsOther(
      'POST',
      '/api/v1/connector-definitions',
      tasklaneDefinition('https://tasklane.example/api'),
    );
    expect(other.status, await other.clone().text()).toBe(201);
  }, 60_000);

  it('answers 429 quota_exceeded with Retry-After past the requests of the day; the other organization goes on', async () => {
    const usage = (await (await platform.call('GET', '/api/v1/usage?granularity=day')).json()) as UsageAnswer;
    const used = usage.meta.quotas.requests_per_day!.used;
    await admin('set-quota', platform.organizationId, 'requests_per_day', String(used + 5));
    // Each instance reads an organization's quotas again within 5 s: flood until it applies.
    const refused = await eventually(
      async () => {
        const response = await platform.call('GET', `/api/v1/integrations/connectors/${flooded}`);
        return response.status === 429 ? response : undefined;
      },
      20_000,
      100,
    );
    const problem = (await refused.json()) as Problem;
    expect(problem.code).toBe('quota_exceeded');
    expect(problem.quota).toMatchObject({ name: 'requests_per_day', limit: used + 5 });
    expect(problem.quota!.used).toBeGreaterThanOrEqual(used + 5);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    // Still refused: nothing runs (and nothing is counted) past it.
    expect(
      (
        await platform.call('POST', `/api/v1/integrations/connectors/${flooded}/sql`, {
          query: 'SELECT COUNT(*) FROM customers',
        })
      ).status,
    ).toBe(429);
    const search = await callAsOther('POST', `/api/v1/integrations/connectors/${spared}/execute`, {
      entity: 'customers',
      action: 'search',
      params: { query: {} },
    });
    expect(search.status).toBe(200);
    await admin('set-quota', platform.organizationId, 'requests_per_day', 'default');
    await eventually(
      async () => {
        const response = await platform.call('GET', `/api/v1/integrations/connectors/${flooded}`);
        return response.status === 200 ? true : undefined;
      },
      20_000,
      250,
    );
  }, 60_000);

  it('reports usage per hour or day, per connector, each organization its own', async () => {
    for (let i = 0; i < 3; i++) {
      const searched = await callAsOther('POST', `/api/v1/integrations/connectors/${spared}/execute`, {
        entity: 'customers',
        action: 'search',
        params: { query: {} },
      });
      expect(searched.status).toBe(200);
    }
    const sql = await callAsOther('POST', `/api/v1/integrations/connectors/${spared}/sql`, {
      query: 'SELECT COUNT(*) AS n FROM customers',
    });
    expect(sql.status).toBe(200);
    const live = await callAsOther('POST', `/api/v1/integrations/connectors/${spared}/execute`, {
      entity: 'customers',
      action: 'list',
      params: { limit: 2 },
    });
    expect(live.status).toBe(200);
    // The worker flushes its counters every 5 s.
    const answer = await eventually(
      async () => {
        const response = await callAsOther('GET', `/api/v1/usage?granularity=hour&connector_id=${spared}`);
        const body = (await response.json()) as UsageAnswer;
        const sum = sumOf(body);
        return sum.records_synced === expectedTotal() ? body : undefined;
      },
      30_000,
      500,
    );
    const sum = sumOf(answer);
    expect(answer.data).toHaveLength(24);
    expect(sum.api_search).toBeGreaterThanOrEqual(4);
    expect(sum.api_sql).toBe(1);
    expect(sum.api_execute).toBe(1);
    expect(sum.upstream_requests).toBeGreaterThan(1);
    expect(answer.meta.quotas.connectors).toEqual({ limit: 10, used: 2 });

    // By day, the flooded organization's own: its usage is not the other's.
    const mine = (await (await platform.call('GET', '/api/v1/usage')).json()) as UsageAnswer;
    expect(mine.data).toHaveLength(30);
    expect(sumOf(mine).api_sql).toBe(0);
    expect(sumOf(mine).records_synced).toBeGreaterThanOrEqual(expectedTotal());
    expect(mine.meta.quotas.records).toMatchObject({ limit: 1000, used: expectedTotal() });
  }, 60_000);

  it('counts the deliveries to the organization’s webhook endpoints', async () => {
    const received: string[] = [];
    const receiver = createServer((request, response) => {
      received.push(String(request.headers['webhook-id']));
      request.resume();
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      const created = await callAsOther('POST', '/api/v1/webhook-endpoints', { url, connector_ids: [spared] });
      expect(created.status, await created.clone().text()).toBe(201);
      const endpoint = (await created.json()) as { id: string };
      // Every change of the connector's feed after its first one, sent again.
      const first = (await (
        await callAsOther('GET', `/api/v1/integrations/connectors/${spared}/changes?limit=1`)
      ).json()) as {
        meta: { cursor: string };
      };
      const replay = await callAsOther('POST', `/api/v1/webhook-endpoints/${endpoint.id}/replay`, {
        after: first.meta.cursor,
        connector_id: spared,
      });
      expect(replay.status).toBe(202);
      await eventually(async () => (received.length >= expectedTotal() - 1 ? true : undefined), 30_000);
      // The worker flushes its counters every 5 s.
      const counted = await eventually(
        async () => {
          const body = (await (await callAsOther('GET', `/api/v1/usage?connector_id=${spared}`)).json()) as UsageAnswer;
          const deliveries = sumOf(body).webhook_deliveries ?? 0;
          return deliveries >= received.length ? deliveries : undefined;
        },
        30_000,
        500,
      );
      expect(counted).toBe(received.length);
      const mine = (await (await platform.call('GET', '/api/v1/usage')).json()) as UsageAnswer;
      expect(sumOf(mine).webhook_deliveries).toBe(0);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 90_000);

  it('refuses a bad usage query with a 400 naming the field', async () => {
    const bad = await platform.call('GET', '/api/v1/usage?granularity=week');
    expect(bad.status).toBe(400);
    const problem = (await bad.json()) as Problem & { errors: { path: string }[] };
    expect(problem.errors.map((e) => e.path)).toEqual(['/query/granularity']);
    const reversed = await platform.call('GET', '/api/v1/usage?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z');
    expect(reversed.status).toBe(400);
    expect(((await reversed.json()) as Problem & { errors: { path: string }[] }).errors[0]!.path).toBe('/query/from');
  });

  it('exports usage and quota gauges to Prometheus', async () => {
    const text = await (await fetch(`${platform.url}/metrics`)).text();
    const org = platform.organizationId;
    expect(text).toContain(`conduit_quota{organization="${org}",quota="records",measure="limit",service="api"} 1000`);
    expect(text).toMatch(
      new RegExp(`conduit_usage_today\\{organization="${other.organizationId}",metric="api_sql",service="api"\\} 1`),
    );
  });
});

interface UsageAnswer {
  data: { start: string; metrics: Record<string, number> }[];
  meta: { quotas: Record<string, { limit: number | null; used: number }> };
}

function sumOf(answer: UsageAnswer): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const bucket of answer.data) {
    for (const [metric, value] of Object.entries(bucket.metrics)) sum[metric] = (sum[metric] ?? 0) + value;
  }
  return sum;
}

/** The other organization's connector's entity statuses (its own token). */
async function statusesOf(
  connectorId: string,
): Promise<Record<string, { status: string; running: boolean; record_count: number }>> {
  const response = await callAsOther('GET', `/api/v1/integrations/connectors/${connectorId}`);
  return (
    (await response.json()) as { entities: Record<string, { status: string; running: boolean; record_count: number }> }
  ).entities;
}
