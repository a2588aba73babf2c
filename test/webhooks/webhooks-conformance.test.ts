import { envSuffix, findConnectorDefinition } from '@conduit/connectors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForEntity } from '../harness/connector-status.ts';
import { createConnector, simulatorConnector } from '../harness/create-connector.ts';
import { ALL_ENTITIES_AT_ONCE, eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { simulatorOverrides } from '../harness/simulator-overrides.ts';
import { subscribeUpstreamWebhooks } from '../harness/upstream-webhooks.ts';
import { startIncidentIo } from '../simulators/incident-io/simulator.ts';
import type { SimulatorHandle, StartSimulator } from '../simulators/kit/fixture.ts';
import type { SignedDelivery, SimulatedWebhooks, WebhookChange } from '../simulators/kit/webhooks.ts';
import { startOrb } from '../simulators/orb/simulator.ts';
import { startPaypalTransaction } from '../simulators/paypal-transaction/simulator.ts';
import { startSentry } from '../simulators/sentry/simulator.ts';
import { startTypeform } from '../simulators/typeform/simulator.ts';
import { startZendeskTalk } from '../simulators/zendesk-talk/simulator.ts';

/**
 * docs/api.md for every kind with webhooks, one shared table: a change in the simulator is announced by the
 * vendor's own signed webhook and becomes searchable with no sync call; refused signatures change nothing; an
 * event id is processed once; a record gone upstream leaves the copy. One platform serves the five kinds.
 */
interface Kind {
  readonly connectorType: string;
  readonly start: StartSimulator;
  /** The scheme signs no timestamp (Typeform): replays are stopped by the event-id dedup instead. */
  readonly signsTimestamp: boolean;
}

const KINDS: readonly Kind[] = [
  { connectorType: 'Orb', start: startOrb, signsTimestamp: true },
  { connectorType: 'Typeform', start: startTypeform, signsTimestamp: false },
  { connectorType: 'Sentry', start: startSentry, signsTimestamp: true },
  { connectorType: 'Incident-Io', start: startIncidentIo as StartSimulator, signsTimestamp: true },
  { connectorType: 'Zendesk-Talk', start: startZendeskTalk, signsTimestamp: true },
];

/** Long enough for a queued event to have been processed had it been accepted (the worker takes ~100 ms). */
const SETTLE_MS = 1_200;
const FRESH_MS = 15_000;

interface Running {
  sim: SimulatorHandle;
  webhooks: SimulatedWebhooks;
  connectorId: string;
  secret: string;
}

let platform: TestPlatform;
const running = new Map<string, Running>();
/** A kind without webhooks (docs/api.md: "unsupported"). */
let paypal: { sim: SimulatorHandle; connectorId: string };

beforeAll(async () => {
  const sims = await Promise.all(KINDS.map((k) => k.start({ size: 6 })));
  const paypalSim = await startPaypalTransaction({ size: 2 });
  // The simulators enforce no plan's limit: the first syncs and the re-reads webhooks cause need not wait on the
  // upstream budget (Typeform's is 2 requests a second).
  const rateLimits = Object.fromEntries(sims.map((sim) => [envSuffix(sim.connectorType), 1000]));
  platform = await startTestPlatform({
    overrides: { ...simulatorOverrides([...sims, paypalSim]), rateLimits },
    env: ALL_ENTITIES_AT_ONCE,
  });
  paypal = {
    sim: paypalSim,
    connectorId: await createConnector(platform, { ...simulatorConnector(paypalSim, 'webhooks'), name: 'paypal' }),
  };
  for (const sim of sims) {
    const webhooks = sim.webhooks!;
    const connectorId = await createConnector(platform, simulatorConnector(sim, 'webhooks'));
    const secret = await subscribeUpstreamWebhooks(platform, webhooks, connectorId);
    running.set(sim.connectorType, { sim, webhooks, connectorId, secret });
  }
  // Initial syncs done first, so that no sync run writes while a test watches the index.
  await Promise.all(
    [...running.values()].map(async ({ sim, connectorId }) => {
      const catalog = findConnectorDefinition(sim.connectorType)!.catalog;
      for (const entity of Object.values(catalog.entities).filter((e) => e.searchable)) {
        await waitForEntity(platform, connectorId, entity.name, (s) => s.status === 'ready' || s.status === 'failed');
      }
    }),
  );
}, 240_000);

afterAll(async () => {
  await platform?.close();
  for (const { sim } of running.values()) await sim.close();
  await paypal?.sim.close();
});

/** The indexed record of `entity` with key `key`, or undefined. */
async function indexed(kind: Running, entity: string, key: string): Promise<Record<string, unknown> | undefined> {
  const spec = findConnectorDefinition(kind.sim.connectorType)!.catalog.entities[entity]!;
  const keyType = spec.searchable?.[spec.recordKey]?.type;
  const value = keyType === 'integer' || keyType === 'number' ? Number(key) : key;
  const response = await platform.call('POST', `/api/v1/integrations/connectors/${kind.connectorId}/execute`, {
    entity,
    action: 'search',
    params: { query: { filter: { eq: { [spec.recordKey]: value } } } },
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { data: Record<string, unknown>[] }).data[0];
}

function searchable(kind: Running, change: WebhookChange, timeoutMs = FRESH_MS) {
  return eventually(async () => {
    const record = await indexed(kind, change.entity, change.key);
    return record && record[change.field!] === change.value ? record : undefined;
  }, timeoutMs);
}

function gone(kind: Running, change: WebhookChange) {
  return eventually(async () => ((await indexed(kind, change.entity, change.key)) ? undefined : true), FRESH_MS);
}

async function post(
  kind: Running,
  delivery: SignedDelivery,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${platform.url}/api/v1/integrations/connectors/${kind.connectorId}/webhooks`, {
    method: 'POST',
    headers: delivery.headers,
    body: delivery.body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The kinds side by side (each its own connector and records; most of each test is waiting for the worker, or making
// sure it did nothing), each kind's tests in order.
describe.concurrent.each(KINDS)('$connectorType webhooks', (kind) => {
  const k = () => running.get(kind.connectorType)!;

  it.sequential('GET shows webhook_url and "configured", never the secret', async () => {
    const response = await platform.call('GET', `/api/v1/integrations/connectors/${k().connectorId}`);
    const text = await response.text();
    expect(text).not.toContain(k().secret);
    expect(JSON.parse(text)).toMatchObject({
      webhooks: 'configured',
      webhook_url: expect.stringMatching(new RegExp(`/api/v1/integrations/connectors/${k().connectorId}/webhooks$`)),
    });
  });

  it.sequential('an upstream change becomes searchable through the signed webhook, with no sync call', async () => {
    const change = await k().webhooks.edit();
    expect(change.status).toBe(202);
    await searchable(k(), change);
  });

  it.sequential('forged, unsigned and stale signatures are 401 invalid_signature and change nothing', async () => {
    const change = await k().webhooks.edit({ send: false });
    const before = await indexed(k(), change.entity, change.key);
    const { sender } = k().webhooks;
    const valid = sender.sign(change.body, change.eventId);
    const refused: [string, SignedDelivery][] = [
      ['forged', sender.sign(change.body, change.eventId, { secret: k().webhooks.newSecret() })],
      ['unsigned', { body: change.body, headers: { 'content-type': 'application/json' } }],
      ['tampered', { ...valid, body: change.body.replace('}', ',"x":1}') }],
    ];
    if (kind.signsTimestamp) {
      refused.push([
        '10 minutes old',
        sender.sign(change.body, change.eventId, { at: new Date(Date.now() - 600_000) }),
      ]);
    }
    for (const [label, delivery] of refused) {
      const answer = await post(k(), delivery);
      expect(answer.status, label).toBe(401);
      expect(answer.body.code, label).toBe('invalid_signature');
    }
    await sleep(SETTLE_MS);
    expect(await indexed(k(), change.entity, change.key)).toEqual(before);
    // The very same event, correctly signed, goes through: what was refused was the signature alone.
    expect((await post(k(), valid)).status).toBe(202);
    await searchable(k(), change);
  });

  it.sequential('the same event id twice is processed once', async () => {
    const change = await k().webhooks.edit();
    expect(change.status).toBe(202);
    await searchable(k(), change);
    // The record disappears upstream silently; a second processing of the event would re-read it and remove it.
    await k().webhooks.remove({ send: false });
    const again = await post(k(), k().webhooks.sender.sign(change.body, change.eventId));
    expect(again).toEqual({ status: 202, body: { event_id: change.eventId, status: 'duplicate' } });
    await sleep(SETTLE_MS);
    expect(await indexed(k(), change.entity, change.key)).toBeDefined();
  });

  it.sequential('a record gone upstream is removed from the copy when a webhook names it', async () => {
    const edited = await k().webhooks.edit();
    await searchable(k(), edited);
    const removed = await k().webhooks.remove();
    expect(removed.key).toBe(edited.key);
    expect(removed.status).toBe(202);
    await gone(k(), removed);
  });
});

describe('webhook route contract', () => {
  const orb = () => running.get('Orb')!;
  const url = (id: string) => `${platform.url}/api/v1/integrations/connectors/${id}/webhooks`;

  it('404 for an unknown connector, before anything else', async () => {
    const response = await fetch(url('00000000-0000-0000-0000-000000000000'), { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
  });

  it('a kind without webhooks: GET says "unsupported" with no URL, PATCH refuses a secret, POST is 404', async () => {
    const view = await platform.call('GET', `/api/v1/integrations/connectors/${paypal.connectorId}`);
    expect(await view.json()).toMatchObject({ webhooks: 'unsupported', webhook_url: null });
    const patched = await platform.call('PATCH', `/api/v1/integrations/connectors/${paypal.connectorId}`, {
      webhook_secret: 'a-secret-for-paypal',
    });
    expect(patched.status).toBe(400);
    const response = await fetch(url(paypal.connectorId), { method: 'POST', body: '{"id":"WH-1"}' });
    expect(response.status).toBe(404);
    // The same answer as an unknown connector: the route does not say what kind a connector is.
    expect(((await response.json()) as { code: string }).code).toBe('connector_not_found');
  });

  it('PATCH checks the secret (8-512 chars; incident.io: whsec_ + base64) and null turns webhooks off', async () => {
    const patch = (id: string, body: unknown) => platform.call('PATCH', `/api/v1/integrations/connectors/${id}`, body);
    for (const secret of ['short', 'x'.repeat(513), 42]) {
      const response = await patch(orb().connectorId, { webhook_secret: secret });
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toContain('/webhook_secret');
    }
    const incident = running.get('Incident-Io')!;
    expect((await patch(incident.connectorId, { webhook_secret: 'not-a-whsec-secret' })).status).toBe(400);

    const zendesk = running.get('Zendesk-Talk')!;
    const off = await patch(zendesk.connectorId, { webhook_secret: null });
    expect(await off.json()).toMatchObject({ webhooks: 'not_configured' });
    const change = await zendesk.webhooks.edit();
    expect(change.status).toBe(401);
    await patch(zendesk.connectorId, { webhook_secret: zendesk.secret });
  });
  // Last: the server closes the connection of a refused oversized body, which the client's pool then drops.
  it('413 for a body over 1 MiB', async () => {
    const response = await fetch(url(orb().connectorId), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"pad":"${'x'.repeat(1024 * 1024)}"}`,
    });
    expect(response.status).toBe(413);
  });
});
