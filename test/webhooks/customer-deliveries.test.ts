import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '@conduit/api';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForEntity, waitForIdleEntities } from '../harness/connector-status.ts';
import { createConnector } from '../harness/create-connector.ts';
import { ORB_ENTITIES, orbSettingsFrom } from '../harness/orb-connector.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { subscribeUpstreamWebhooks } from '../harness/upstream-webhooks.ts';
import { WorkerProcess } from '../harness/worker-process.ts';
import { type OrbSimulator, startOrbSimulator } from '../simulators/orb/simulator.ts';
import { orbCustomerEvent } from '../simulators/orb/webhooks.ts';

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly answered: number | null;
}

/**
 * A customer's endpoint: records every call; `answer` decides each status (null: hold the call open until
 * `releaseHeld()`, as a receiver that hangs).
 */
class Receiver {
  readonly calls: Received[] = [];
  answer: (call: { webhookId: string; nth: number }) => number | null = () => 200;
  #held: (() => void)[] = [];
  #server!: Server;
  get url() {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hooks`;
  }
  async start() {
    this.#server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const webhookId = String(req.headers['webhook-id']);
      const nth = this.calls.filter((c) => c.headers['webhook-id'] === webhookId).length + 1;
      const status = this.answer({ webhookId, nth });
      this.calls.push({ headers: req.headers, body: Buffer.concat(chunks).toString(), answered: status });
      if (status === null) {
        await new Promise<void>((resolve) => this.#held.push(resolve));
        res.destroy();
        return;
      }
      res.writeHead(status).end();
    });
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
  }
  releaseHeld() {
    for (const release of this.#held.splice(0)) release();
  }
  async close() {
    this.releaseHeld();
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }
  /** The calls of events of one record, as parsed bodies. */
  of(key: string) {
    return this.calls.filter((c) => (JSON.parse(c.body) as { key: string }).key === key);
  }
}

const START = '2020-01-01T00:00:00Z';
const LOCAL = { WEBHOOK_ALLOW_HTTP: '1', WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE: '300ms,600ms,900ms' };

async function orbPlatform(env: Record<string, string>, worker = true) {
  const sim = await startOrbSimulator({ customers: 6, subscriptionsPerCustomer: 0 });
  const platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {} }, env, worker });
  return { sim, platform };
}

/** Subscribes the Orb simulator's webhooks to the connector; returns a function that edits a customer upstream. */
async function upstreamWebhooks(platform: TestPlatform, sim: OrbSimulator, id: string) {
  await subscribeUpstreamWebhooks(platform, sim.webhooks, id);
  return async (key: string, email: string) => {
    sim.data.customers.find((c) => c.id === key)!.email = email;
    const { eventId, body } = orbCustomerEvent('customer.edited', { id: key });
    expect(await sim.webhooks.sender.emit(body, eventId)).toBe(202);
  };
}

async function createEndpoint(platform: TestPlatform, body: Record<string, unknown>) {
  const response = await platform.call('POST', '/api/v1/webhook-endpoints', body);
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as { id: string; secret: string; enabled: boolean };
}

describe('webhooks to the customer: signed, retried, in order per record, replayable', () => {
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let id: string;
  let edit: (key: string, email: string) => Promise<void>;
  const receiver = new Receiver();
  const deliveries = async (endpointId: string, status = '') =>
    (
      (await (await platform.call('GET', `/api/v1/webhook-endpoints/${endpointId}/deliveries${status}`)).json()) as {
        data: {
          webhook_id: string;
          status: string;
          attempts: { http_status: number | null; error: string | null }[];
        }[];
      }
    ).data;

  beforeAll(async () => {
    await receiver.start();
    ({ sim, platform } = await orbPlatform(LOCAL));
    id = await createConnector(platform, { customer_name: 'acme', name: 'out', ...orbSettingsFrom(sim.apiKey, START) });
    edit = await upstreamWebhooks(platform, sim, id);
    await waitForIdleEntities(platform, id, ORB_ENTITIES);
  }, 120_000);
  afterAll(async () => {
    await platform?.close();
    await sim?.close();
    await receiver.close();
  });

  it('delivers a change signed the Standard Webhooks way, the same webhook-id on every retry until a 2xx', async () => {
    receiver.answer = ({ nth }) => (nth <= 2 ? 500 : 200);
    const endpoint = await createEndpoint(platform, {
      url: receiver.url,
      connector_ids: [id],
      entities: ['customers'],
    });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    // The secret is shown once.
    const shown = await (await platform.call('GET', `/api/v1/webhook-endpoints/${endpoint.id}`)).json();
    expect(JSON.stringify(shown)).not.toContain(endpoint.secret.slice(6));
    const key = sim.data.customers[0]!.id;
    await edit(key, 'delivered@example.com');
    const calls = await eventually(async () => {
      const of = receiver.of(key);
      return of.some((c) => c.answered === 200) ? of : undefined;
    }, 30_000);
    expect(calls.map((c) => c.answered)).toEqual([500, 500, 200]);
    expect(new Set(calls.map((c) => c.headers['webhook-id'])).size).toBe(1);
    const verifier = new Webhook(endpoint.secret);
    for (const call of calls) {
      const event = verifier.verify(call.body, call.headers as Record<string, string>) as Record<string, unknown>;
      expect(event).toMatchObject({
        type: 'record.updated',
        entity: 'customers',
        key,
        connector_id: id,
        source: 'webhook',
      });
      expect((event.record as { email: string }).email).toBe('delivered@example.com');
    }
    // A forged signature does not verify.
    expect(() =>
      new Webhook(`whsec_${Buffer.from('another key!').toString('base64')}`).verify(
        calls[0]!.body,
        calls[0]!.headers as Record<string, string>,
      ),
    ).toThrow();
    const log = await eventually(async () => {
      const rows = await deliveries(endpoint.id, '?status=delivered');
      return rows.length > 0 ? rows : undefined;
    });
    expect(log[0]!.webhook_id).toBe(calls[0]!.headers['webhook-id']);
    expect(log[0]!.attempts.map((a) => a.http_status)).toEqual([500, 500, 200]);
    await platform.call('DELETE', `/api/v1/webhook-endpoints/${endpoint.id}`);
  }, 60_000);

  it('delivers the events of one record in order, even when an earlier one needs retries', async () => {
    receiver.calls.length = 0;
    // Every first attempt fails: without the order rule the second event would overtake the first's retry.
    receiver.answer = ({ nth }) => (nth === 1 ? 503 : 200);
    const endpoint = await createEndpoint(platform, { url: receiver.url, connector_ids: [id] });
    const key = sim.data.customers[1]!.id;
    const emails = ['first@example.com', 'second@example.com', 'third@example.com'];
    for (const email of emails) {
      await edit(key, email);
      await eventually(async () => (receiver.of(key).some((c) => c.body.includes(email)) ? true : undefined), 30_000);
    }
    const delivered = await eventually(async () => {
      const ok = receiver.of(key).filter((c) => c.answered === 200);
      return ok.length === emails.length ? ok : undefined;
    }, 30_000);
    expect(delivered.map((c) => (JSON.parse(c.body) as { record: { email: string } }).record.email)).toEqual(emails);
    const ids = delivered.map((c) => Number(String(c.headers['webhook-id']).split('.').at(-1)));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    await platform.call('DELETE', `/api/v1/webhook-endpoints/${endpoint.id}`);
  }, 60_000);

  it('marks a delivery failed after the retry schedule, logs each attempt, and replays from a cursor', async () => {
    receiver.calls.length = 0;
    receiver.answer = () => 500;
    const endpoint = await createEndpoint(platform, {
      url: receiver.url,
      connector_ids: [id],
      types: ['record.updated'],
    });
    const cursor = (
      (await (await platform.call('GET', `/api/v1/integrations/connectors/${id}/changes?after=latest`)).json()) as {
        meta: { cursor: string };
      }
    ).meta.cursor;
    const key = sim.data.customers[2]!.id;
    await edit(key, 'will-fail@example.com');
    const failed = await eventually(async () => {
      const rows = await deliveries(endpoint.id, '?status=failed');
      return rows.length > 0 ? rows : undefined;
    }, 30_000);
    // One attempt, then one per wait of WEBHOOK_RETRY_SCHEDULE (three).
    expect(failed[0]!.attempts.map((a) => a.http_status)).toEqual([500, 500, 500, 500]);
    const webhookId = failed[0]!.webhook_id;
    // The receiver is fixed; the customer replays from the cursor before the change.
    receiver.answer = () => 200;
    const replay = await platform.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/replay`, {
      after: cursor,
      connector_id: id,
    });
    expect(replay.status).toBe(202);
    await eventually(
      async () =>
        receiver.calls.some((c) => c.headers['webhook-id'] === webhookId && c.answered === 200) ? true : undefined,
      30_000,
    );
    // The receiver has its 200 before the worker records the attempt: the log shows it delivered right after.
    await eventually(
      async () =>
        (await deliveries(endpoint.id, '?status=delivered')).some((d) => d.webhook_id === webhookId) ? true : undefined,
      10_000,
    );
    await platform.call('DELETE', `/api/v1/webhook-endpoints/${endpoint.id}`);
  }, 60_000);

  it('disables an endpoint failing for 5 days; PATCH enabled brings it back', async () => {
    receiver.answer = () => 500;
    const endpoint = await createEndpoint(platform, { url: receiver.url, connector_ids: [id] });
    const db = new pg.Client({ connectionString: platform.api.deps.env.DATABASE_URL });
    await db.connect();
    try {
      await db.query(`update webhook_endpoints set failing_since = now() - interval '5 days 1 minute' where id = $1`, [
        endpoint.id,
      ]);
    } finally {
      await db.end();
    }
    await edit(sim.data.customers[3]!.id, 'disable-me@example.com');
    const disabled = await eventually(async () => {
      const view = (await (await platform.call('GET', `/api/v1/webhook-endpoints/${endpoint.id}`)).json()) as {
        enabled: boolean;
        disabled_reason: string | null;
      };
      return view.enabled ? undefined : view;
    }, 30_000);
    expect(disabled.disabled_reason).toContain('5 days');
    const enabled = await platform.call('PATCH', `/api/v1/webhook-endpoints/${endpoint.id}`, { enabled: true });
    expect(((await enabled.json()) as { enabled: boolean }).enabled).toBe(true);
    await platform.call('DELETE', `/api/v1/webhook-endpoints/${endpoint.id}`);
  }, 60_000);

  it('another organization cannot see, change or list an endpoint (404)', async () => {
    const endpoint = await createEndpoint(platform, { url: receiver.url });
    const { token } = await platform.anotherOrganization();
    const as = (method: string, path: string, body?: unknown) =>
      fetch(`${platform.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    for (const [method, path, body] of [
      ['GET', `/api/v1/webhook-endpoints/${endpoint.id}`],
      ['PATCH', `/api/v1/webhook-endpoints/${endpoint.id}`, { enabled: false }],
      ['GET', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries`],
      ['POST', `/api/v1/webhook-endpoints/${endpoint.id}/replay`, { after: '0' }],
      ['DELETE', `/api/v1/webhook-endpoints/${endpoint.id}`],
    ] as const) {
      const response = await as(method, path, body);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe('webhook_endpoint_not_found');
    }
    expect(((await (await as('GET', '/api/v1/webhook-endpoints')).json()) as { data: unknown[] }).data).toEqual([]);
    // Nor subscribe to a connector of this organization.
    const foreign = await as('POST', '/api/v1/webhook-endpoints', {
      url: 'https://example.com/h',
      connector_ids: [id],
    });
    expect(foreign.status).toBe(400);
    await platform.call('DELETE', `/api/v1/webhook-endpoints/${endpoint.id}`);
  });

  it('outside the local profile, refuses http and non-public addresses (SSRF), naming /url', async () => {
    const strict = await platform.secondApi({ WEBHOOK_ALLOW_HTTP: '0', WEBHOOK_ALLOW_PRIVATE: '0' });
    try {
      const app = buildApp(strict.deps);
      const token = await platform.token();
      const post = (url: string) =>
        app.request('/api/v1/webhook-endpoints', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url }),
        });
      for (const url of [
        receiver.url,
        'https://127.0.0.1/hooks',
        'https://10.0.0.8/hooks',
        'https://169.254.169.254/latest/meta-data',
        'https://[::1]/hooks',
        'https://[::ffff:192.168.1.1]/hooks',
        'https://localhost/hooks',
        'ftp://example.com/hooks',
      ]) {
        const response = await post(url);
        expect(response.status, url).toBe(400);
        expect(((await response.json()) as { errors: { path: string }[] }).errors[0]?.path, url).toBe('/url');
      }
      const ok = await post('https://hooks.example.com/conduit');
      expect(ok.status).toBe(201);
      await platform.call('DELETE', `/api/v1/webhook-endpoints/${((await ok.json()) as { id: string }).id}`);
    } finally {
      await strict.close();
    }
  });
});

describe('webhooks to the customer survive a worker killed mid-delivery', () => {
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let worker: WorkerProcess;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    ({ sim, platform } = await orbPlatform(LOCAL, false));
    worker = new WorkerProcess(platform.api.deps.env, {
      CONNECTOR_BASE_URL_ORB: sim.url,
      WORKER_LOCK_MS: '2000',
      WEBHOOK_TIMEOUT_MS: '3000',
      LOG_LEVEL: 'info',
      ...LOCAL,
    });
    worker.start();
    await worker.waitFor('worker started');
  }, 60_000);
  afterAll(async () => {
    await worker?.kill('SIGKILL');
    await platform?.close();
    await sim?.close();
    await receiver.close();
  });

  it('SIGKILL while the receiver holds the request: the delivery is sent again with the same webhook-id', async () => {
    const id = await createConnector(platform, {
      customer_name: 'acme',
      name: 'kill',
      ...orbSettingsFrom(sim.apiKey, START),
    });
    await waitForEntity(platform, id, 'customers', (s) => s.status === 'ready' && !s.running, 90_000);
    const edit = await upstreamWebhooks(platform, sim, id);
    receiver.answer = ({ nth }) => (nth === 1 ? null : 200);
    await createEndpoint(platform, { url: receiver.url, connector_ids: [id], entities: ['customers'] });
    const key = sim.data.customers[0]!.id;
    await edit(key, 'through-a-crash@example.com');
    await eventually(async () => (receiver.of(key).length === 1 ? true : undefined), 30_000);
    expect(await worker.kill('SIGKILL')).toBeNull();
    receiver.releaseHeld();
    worker.start();
    const calls = await eventually(async () => {
      const of = receiver.of(key);
      return of.some((c) => c.answered === 200) ? of : undefined;
    }, 30_000);
    expect(calls.map((c) => c.headers['webhook-id'])).toEqual([
      calls[0]!.headers['webhook-id'],
      calls[0]!.headers['webhook-id'],
    ]);
    expect((JSON.parse(calls[1]!.body) as { record: { email: string } }).record.email).toBe(
      'through-a-crash@example.com',
    );
  }, 120_000);
});

describe('webhooks to the customer after an outage', () => {
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let id: string;
  let edit: (key: string, email: string) => Promise<void>;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    // Waits of an hour: whatever goes out within the test was brought forward, not waited for.
    ({ sim, platform } = await orbPlatform({ ...LOCAL, WEBHOOK_RETRY_SCHEDULE: '1h,1h' }));
    id = await createConnector(platform, { customer_name: 'acme', name: 'out', ...orbSettingsFrom(sim.apiKey, START) });
    edit = await upstreamWebhooks(platform, sim, id);
    await waitForEntity(platform, id, 'customers', (s) => s.status === 'ready' && !s.running);
  }, 120_000);
  afterAll(async () => {
    await platform?.close();
    await sim?.close();
    await receiver.close();
  });

  it('the first success after failures makes the waiting retries due at once, still in order per record', async () => {
    receiver.answer = () => 503;
    await createEndpoint(platform, { url: receiver.url, connector_ids: [id] });
    const [a, b, c] = sim.data.customers.map((customer) => customer.id);
    await edit(a!, 'a-first@example.com');
    await edit(b!, 'b-only@example.com');
    await eventually(async () => (receiver.of(a!).length > 0 && receiver.of(b!).length > 0 ? true : undefined));
    // A second event of `a` waits behind its first, which waits an hour for its retry.
    await edit(a!, 'a-second@example.com');
    const edited = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.of(a!).some((call) => call.body.includes('a-second'))).toBe(false);

    // The receiver is back: the next event goes through, and the ones waiting follow without their hour.
    receiver.answer = () => 200;
    await edit(c!, 'c-after@example.com');
    const delivered = (key: string) =>
      receiver
        .of(key)
        .filter((call) => call.answered === 200)
        .map((call) => (JSON.parse(call.body) as { record: { email: string } }).record.email);
    await eventually(
      async () =>
        delivered(a!).length === 2 && delivered(b!).length === 1 && delivered(c!).length === 1 ? true : undefined,
      30_000,
    );
    expect(delivered(a!)).toEqual(['a-first@example.com', 'a-second@example.com']);
    expect(Date.now() - edited).toBeLessThan(60_000);
  }, 90_000);
});
