import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForIdleEntities } from '../harness/connector-status.ts';
import { createConnector } from '../harness/create-connector.ts';
import { ORB_ENTITIES, orbSettings, startOrbPlatform } from '../harness/orb-connector.ts';
import { closeInOrder, eventually, type TestPlatform } from '../harness/platform.ts';
import { subscribeUpstreamWebhooks } from '../harness/upstream-webhooks.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';

/** The caps the worker applies (packages/sync/src/delivery-pool.ts, customer-deliveries.ts), as users see them. */
const ENDPOINT_IN_FLIGHT = 8;
const ORGANIZATION_IN_FLIGHT = 16;
const ENDPOINT_BACKLOG = 1_000;
const ORGANIZATION_BACKLOG = 5_000;
const ENDPOINTS_PER_ORGANIZATION = 11;
const SLOW_ANSWER_MS = 9_000;

interface Call {
  readonly path: string;
  readonly at: number;
  readonly webhookId: string;
  readonly body: { entity: string; key: string; record?: { content?: string; [field: string]: unknown } };
  /** Calls open on the same path (this one included) when it arrived. */
  readonly openOnPath: number;
  readonly openInAll: number;
}

/** A receiver started by the test: answers 200 after `delayMs`, and notes how many calls were open at each. */
class Receiver {
  readonly calls: Call[] = [];
  readonly #open = new Map<string, number>();
  #openInAll = 0;
  /** When each path answered first. */
  readonly firstAnswered = new Map<string, number>();
  #server!: Server;
  readonly delayMs: number;
  constructor(delayMs: number) {
    this.delayMs = delayMs;
  }
  url(path: string) {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}${path}`;
  }
  async start() {
    this.#server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const path = req.url ?? '';
      this.#open.set(path, (this.#open.get(path) ?? 0) + 1);
      this.#openInAll += 1;
      this.calls.push({
        path,
        at: Date.now(),
        webhookId: String(req.headers['webhook-id']),
        body: JSON.parse(Buffer.concat(chunks).toString()) as Call['body'],
        openOnPath: this.#open.get(path) ?? 0,
        openInAll: this.#openInAll,
      });
      if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      this.#open.set(path, (this.#open.get(path) ?? 1) - 1);
      this.#openInAll -= 1;
      if (!this.firstAnswered.has(path)) this.firstAnswered.set(path, Date.now());
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
  }
  async close() {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

const LOCAL = {
  WEBHOOK_ALLOW_HTTP: '1',
  WEBHOOK_ALLOW_PRIVATE: '1',
  WEBHOOK_ENDPOINTS_PER_ORGANIZATION: String(ENDPOINTS_PER_ORGANIZATION),
};

/**
 * Deliveries shared between tenants: an organization whose ten endpoints answer after 9 s, each replaying a feed of
 * 3,000 events from the start, does not hold another organization's deliveries; it is held to its caps (endpoints,
 * deliveries in flight, deliveries queued), and its replays still arrive whole and in order per record.
 */
describe('customer webhook deliveries shared fairly between organizations', () => {
  let sim: SimulatorHandle;
  let platform: TestPlatform;
  let victimConnector: string;
  let attackerConnector: string;
  let attackerToken: string;
  let attackerOrganization: string;
  let db: pg.Client;
  const slow = new Receiver(SLOW_ANSWER_MS);
  const fast = new Receiver(0);
  const asAttacker = (method: string, path: string, body?: unknown) =>
    platform.call(method, path, body, { authorization: `Bearer ${attackerToken}` });
  const createEndpoint = async (url: string, connectorId: string, call = asAttacker) => {
    const response = await call('POST', '/api/v1/webhook-endpoints', { url, connector_ids: [connectorId] });
    expect(response.status, await response.clone().text()).toBe(201);
    return ((await response.json()) as { id: string }).id;
  };
  /** Pending deliveries of each endpoint of the attacker's organization, read from the outbox. */
  const pendingPerEndpoint = async () => {
    const { rows } = await db.query<{ n: string }>(
      `select count(*) as n from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
       where e.organization_id = $1 and d.status = 'pending' group by d.endpoint_id`,
      [attackerOrganization],
    );
    return rows.map((r) => Number(r.n));
  };

  beforeAll(async () => {
    await Promise.all([slow.start(), fast.start()]);
    ({ sim, platform } = await startOrbPlatform({ size: 3, env: LOCAL }));
    db = new pg.Client({ connectionString: platform.api.deps.env.DATABASE_URL });
    await db.connect();
    victimConnector = await createConnector(platform, { customer_name: 'victim', name: 'orb', ...orbSettings(sim) });
    await subscribeUpstreamWebhooks(platform, sim.webhooks!, victimConnector);
    ({ token: attackerToken, organizationId: attackerOrganization } = await platform.anotherOrganization());
    const created = await asAttacker('POST', '/api/v1/integrations/connectors', {
      customer_name: 'attacker',
      name: 'orb',
      ...orbSettings(sim),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    attackerConnector = ((await created.json()) as { connector_id: string }).connector_id;
    await waitForIdleEntities(platform, victimConnector, ORB_ENTITIES);
    // The attacker's feed: 300 records, each changed 10 times (3,000 events), appended as a sync would.
    for (let version = 1; version <= 10; version++) {
      const changes = Array.from({ length: 300 }, (_, i) => ({
        key: `bulk-${i}`,
        version,
        contentHash: `v${version}`,
        recordJson: JSON.stringify({ id: `bulk-${i}`, content: `v${version}` }),
      }));
      await platform.api.deps.changeFeed.append(attackerConnector, 'bulk', 'sync', changes);
    }
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await closeInOrder(platform, sim);
    await Promise.all([slow.close(), fast.close()]);
  });

  it('caps the endpoints of an organization with a 409 naming the limit, and not another organization', async () => {
    const ids: string[] = [];
    for (let i = 0; i < ENDPOINTS_PER_ORGANIZATION; i++) {
      ids.push(await createEndpoint(slow.url(`/slow/${i}`), attackerConnector));
    }
    const over = await asAttacker('POST', '/api/v1/webhook-endpoints', { url: slow.url('/slow/over') });
    expect(over.status).toBe(409);
    const problem = (await over.json()) as { code: string; detail: string };
    expect(problem.code).toBe('webhook_endpoint_limit');
    expect(problem.detail).toContain('WEBHOOK_ENDPOINTS_PER_ORGANIZATION');
    expect(problem.detail).toContain(String(ENDPOINTS_PER_ORGANIZATION));
    const list = (await (await asAttacker('GET', '/api/v1/webhook-endpoints')).json()) as { data: unknown[] };
    expect(list.data).toHaveLength(ENDPOINTS_PER_ORGANIZATION);
    // Another organization is not counted with it.
    const victimEndpoint = await createEndpoint(fast.url('/victim'), victimConnector, platform.call);
    expect(victimEndpoint).toMatch(/^we_/);
    // One deleted, one may be created again; ten stay for the flood.
    expect((await asAttacker('DELETE', `/api/v1/webhook-endpoints/${ids.pop()}`)).status).toBe(204);
    expect((await asAttacker('GET', '/api/v1/webhook-endpoints')).status).toBe(200);
  });

  it("delivers another organization's change within seconds while ten endpoints answering after 9 s replay 3,000 events each", async () => {
    /** Calls to an endpoint made after it first answered (slowly), and the endpoints that had one. */
    const callsAfterSlowAnswer = () =>
      slow.calls.filter((c) => c.at > (slow.firstAnswered.get(c.path) ?? Number.POSITIVE_INFINITY) + 500);
    const calledAfterSlowAnswer = () => new Set(callsAfterSlowAnswer().map((c) => c.path));
    const endpoints = (
      (await (await asAttacker('GET', '/api/v1/webhook-endpoints')).json()) as {
        data: { id: string }[];
      }
    ).data;
    expect(endpoints).toHaveLength(10);
    for (const endpoint of endpoints) {
      const replay = await asAttacker('POST', `/api/v1/webhook-endpoints/${endpoint.id}/replay`, { after: '0' });
      expect(replay.status, await replay.clone().text()).toBe(202);
    }
    await eventually(async () => (slow.calls.length > 0 ? true : undefined), 15_000, 50);
    const pendingSamples: number[][] = [];
    const sampler = setInterval(() => {
      void pendingPerEndpoint().then((sample) => pendingSamples.push(sample));
    }, 500);
    const latencies: number[] = [];
    try {
      // Three changes of the victim's, one after the other, across the attacker's first and second waves.
      for (let i = 0; i < 3; i++) {
        const change = await sim.webhooks!.edit();
        expect(change.status).toBe(202);
        const sent = Date.now();
        const arrived = await eventually(
          async () =>
            fast.calls.find(
              (c) =>
                c.path === '/victim' && c.body.key === change.key && c.body.record?.[change.field!] === change.value,
            ),
          30_000,
          20,
        ).catch((error: unknown) => {
          throw new Error(`the victim's change ${i + 1} did not arrive in 30 s (before: ${latencies.join(', ')} ms)`, {
            cause: error,
          });
        });
        latencies.push(arrived.at - sent);
        await new Promise((resolve) => setTimeout(resolve, 3_000));
      }
      // Until three of the attacker's endpoints have answered slowly and been called again: enough to see how a
      // slow endpoint is served, without waiting for all ten (each wave waits 9 s on the receivers, and under a
      // busy machine reaching the tenth has taken over a minute).
      await eventually(async () => (calledAfterSlowAnswer().size >= 3 ? true : undefined), 120_000);
    } finally {
      clearInterval(sampler);
      // The flood ends: its endpoints go, and their queued deliveries with them.
      for (const endpoint of endpoints) await asAttacker('DELETE', `/api/v1/webhook-endpoints/${endpoint.id}`);
    }
    // The victim's deliveries: seconds, not the minutes of lock-step rounds behind 9 s receivers.
    expect(Math.max(...latencies), `victim latencies ${latencies.join(', ')} ms`).toBeLessThan(5_000);
    // In flight: at most the per-endpoint cap on each, the organization's cap in all; once an endpoint has answered
    // slowly, one at a time.
    expect(Math.max(...slow.calls.map((c) => c.openOnPath))).toBeLessThanOrEqual(ENDPOINT_IN_FLIGHT);
    expect(Math.max(...slow.calls.map((c) => c.openInAll))).toBeLessThanOrEqual(ORGANIZATION_IN_FLIGHT);
    const later = callsAfterSlowAnswer();
    expect(later.length).toBeGreaterThan(0);
    expect(Math.max(...later.map((c) => c.openOnPath))).toBe(1);
    // Queued: the replays of 30,000 deliveries are held to the backlog bounds, the rest left in the feed.
    const all = pendingSamples.filter((s) => s.length > 0);
    expect(all.length).toBeGreaterThan(0);
    expect(Math.max(...all.flat())).toBeLessThanOrEqual(ENDPOINT_BACKLOG);
    expect(Math.max(...all.map((s) => s.reduce((a, b) => a + b, 0)))).toBeLessThanOrEqual(ORGANIZATION_BACKLOG);
    expect(Math.max(...all.map((s) => s.reduce((a, b) => a + b, 0)))).toBeGreaterThan(ENDPOINT_BACKLOG);
  }, 240_000);

  it('sends a replay of 3,000 events through the bounded backlog: every event once it drains, in order per record', async () => {
    const endpoint = await createEndpoint(fast.url('/drain'), attackerConnector);
    const replay = await asAttacker('POST', `/api/v1/webhook-endpoints/${endpoint}/replay`, { after: '0' });
    expect(replay.status).toBe(202);
    let most = 0;
    // The connector's own sync events are in its feed too: the 3,000 appended ones are counted.
    const drainCalls = () => fast.calls.filter((c) => c.path === '/drain' && c.body.entity === 'bulk');
    const drained = await eventually(
      async () => {
        most = Math.max(most, ...(await pendingPerEndpoint()));
        const ids = new Set(drainCalls().map((c) => c.webhookId));
        return ids.size >= 3_000 ? ids : undefined;
      },
      90_000,
      100,
    );
    expect(drained.size).toBe(3_000);
    expect(most).toBeLessThanOrEqual(ENDPOINT_BACKLOG);
    // Per record, the versions arrive in the order they were appended.
    const byKey = new Map<string, string[]>();
    for (const call of drainCalls()) {
      const seen = byKey.get(call.body.key) ?? [];
      if (seen.at(-1) !== call.body.record?.content) seen.push(String(call.body.record?.content));
      byKey.set(call.body.key, seen);
    }
    expect(byKey.size).toBe(300);
    const versions = Array.from({ length: 10 }, (_, i) => `v${i + 1}`);
    for (const [key, seen] of byKey) expect(seen, key).toEqual(versions);
  }, 120_000);
});
