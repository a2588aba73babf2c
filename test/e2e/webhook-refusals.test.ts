import { randomUUID } from 'node:crypto';
import { REFUSED_WEBHOOKS_PER_MINUTE } from '@conduit/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettings, startOrbPlatform } from '../harness/orb-connector.ts';
import { closeInOrder, eventually, type TestPlatform } from '../harness/platform.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import type { SignedDelivery } from '../simulators/kit/webhooks.ts';

const LIMIT = REFUSED_WEBHOOKS_PER_MINUTE;

/**
 * The public upstream-webhook route against abuse: its 404 names nothing, refused calls are limited per address and
 * per connector (429 with Retry-After), only a sample of them is logged, and a correctly signed call is accepted
 * whatever its address was refused.
 */
describe('refused calls on the public webhook route', () => {
  let sim: SimulatorHandle;
  let platform: TestPlatform;
  let orbId: string;
  let paypalId: string;
  const path = (id: string) => `/api/v1/integrations/connectors/${id}/webhooks`;
  /** Over the network, from 127.0.0.1. */
  const overHttp = (id: string, delivery: SignedDelivery) =>
    fetch(`${platform.url}${path(id)}`, { method: 'POST', headers: delivery.headers, body: delivery.body });
  /** In-process: a caller without a socket, so another address than 127.0.0.1 for the limits. */
  const inProcess = (id: string, delivery: SignedDelivery) =>
    platform.app.request(path(id), { method: 'POST', headers: delivery.headers, body: delivery.body });
  const refusedLines = () => platform.logLines.filter((line) => line.includes('webhook refused'));

  beforeAll(async () => {
    ({ sim, platform } = await startOrbPlatform({ size: 3 }));
    orbId = await createConnector(platform, { customer_name: 'acme', name: 'orb', ...orbSettings(sim) });
    const secret = sim.webhooks!.newSecret();
    const patched = await platform.call('PATCH', `/api/v1/integrations/connectors/${orbId}`, {
      webhook_secret: secret,
    });
    expect(patched.status).toBe(200);
    sim.webhooks!.sender.subscribe(`${platform.url}${path(orbId)}`, secret);
    // A kind without webhooks (PayPal), written straight to the database: its API needs a simulator of its own.
    paypalId = randomUUID();
    await platform.api.deps.connectors.insert({
      id: paypalId,
      organization_id: platform.organizationId,
      connector_type: 'Paypal-Transaction',
      customer_name: 'acme',
      name: 'payments',
      credentials_ciphertext: platform.api.deps.cipher.encrypt({ client_id: 'x', client_secret: 'y' }),
      config: '{}',
      replication_config: JSON.stringify({ start_date: '2024-01-01T00:00:00Z' }),
    });
  });
  afterAll(() => closeInOrder(platform, sim));

  it('answers an unknown connector and a kind without webhooks with the same 404, naming nothing', async () => {
    const unsigned = { body: '{"id":"evt"}', headers: { 'content-type': 'application/json' } };
    const unknownId = randomUUID();
    const answers = await Promise.all([overHttp(unknownId, unsigned), overHttp(paypalId, unsigned)]);
    const bodies = await Promise.all(answers.map((a) => a.text()));
    for (const [i, answer] of answers.entries()) expect(answer.status, bodies[i]).toBe(404);
    const comparable = (text: string) => {
      const { type, title, status, detail, code } = JSON.parse(text) as Record<string, unknown>;
      return { type, title, status, detail, code };
    };
    expect(comparable(bodies[0]!)).toEqual(comparable(bodies[1]!));
    expect(comparable(bodies[0]!).code).toBe('connector_not_found');
    for (const text of bodies) expect(text).not.toMatch(/paypal|unsupported|webhooks_unsupported/i);
    expect(bodies[0]).not.toContain(unknownId);
    expect(bodies[1]).not.toContain(paypalId);
  });

  it('limits forgeries to a connector with 429 + Retry-After, while its genuine deliveries still go through', async () => {
    const change = await sim.webhooks!.edit({ send: false });
    const genuine = sim.webhooks!.sender.sign(change.body, change.eventId);
    const forged = sim.webhooks!.sender.sign(change.body, change.eventId, { secret: sim.webhooks!.newSecret() });
    const before = refusedLines().length;
    // The 404s above counted for 127.0.0.1 only; in-process calls are another address.
    for (let i = 0; i < LIMIT; i++) expect((await inProcess(orbId, forged)).status).toBe(401);
    const blocked = await inProcess(orbId, forged);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(blocked.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(((await blocked.json()) as { code: string }).code).toBe('rate_limited');

    // From another address: the connector is over its limit, so a forgery is 429, but the vendor's call is checked
    // and accepted.
    const forgedAgain = await overHttp(orbId, forged);
    expect(forgedAgain.status).toBe(429);
    expect(forgedAgain.headers.get('retry-after')).toMatch(/^\d+$/);
    const accepted = await overHttp(orbId, genuine);
    expect(accepted.status, await accepted.clone().text()).toBe(202);

    // LIMIT + 2 refusals, one log line (the first of the window).
    const lines = refusedLines().slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('"refused_in_window":1');
  });

  it('refuses an address over its limit with 429, whatever connector it names', async () => {
    // The in-process address spent its refusals above.
    const answer = await inProcess(randomUUID(), { body: '{}', headers: { 'content-type': 'application/json' } });
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('accepts a correctly signed event from an address that sent 100 unsigned calls, and re-reads its record', async () => {
    const unsigned = { body: '{"id":"evt"}', headers: { 'content-type': 'application/json' } };
    const statuses = new Set<number>();
    for (let i = 0; i < 100; i++) statuses.add((await overHttp(randomUUID(), unsigned)).status);
    // Refused all along, and 429 once over the limit: the address is blocked for what cannot be verified.
    expect([...statuses].sort()).toEqual([404, 429]);
    const change = await sim.webhooks!.edit({ send: false });
    const accepted = await overHttp(orbId, sim.webhooks!.sender.sign(change.body, change.eventId));
    expect(accepted.status, await accepted.clone().text()).toBe(202);
    // The worker re-read the record the event names: the change is in the feed, from the webhook, with the new value.
    const event = await eventually(async () => {
      const response = await platform.call('GET', `/api/v1/integrations/connectors/${orbId}/changes?limit=1000`);
      const { data } = (await response.json()) as {
        data: { key: string; source: string; record?: Record<string, unknown> }[];
      };
      return data.find((e) => e.key === change.key && e.source === 'webhook');
    }, 30_000);
    expect(event.record?.[change.field!]).toEqual(change.value);
    // Still blocked for anything else.
    expect((await overHttp(randomUUID(), unsigned)).status).toBe(429);
  }, 60_000);
});
