import { findConnectorDefinition } from '@conduit/connectors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector, simulatorConnector } from '../harness/create-connector.ts';
import { closeInOrder, eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { simulatorOverrides } from '../harness/simulator-overrides.ts';
import { subscribeUpstreamWebhooks } from '../harness/upstream-webhooks.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import type { WebhookChange } from '../simulators/kit/webhooks.ts';
import { startOrb } from '../simulators/orb/simulator.ts';
import { startTypeform } from '../simulators/typeform/simulator.ts';

/**
 * Webhook worker slots shared between organizations: A's events are held at its upstream (every Orb request waits
 * until the test releases it) and take at most half of WEBHOOK_CONCURRENCY slots, so B's events are
 * processed meanwhile.
 */
describe('webhook worker slots shared fairly between organizations', () => {
  let orb: SimulatorHandle;
  let typeform: SimulatorHandle;
  let platform: TestPlatform;
  let tokenB = '';
  const connectors: Record<string, string> = {};

  const call = (token: string, method: string, path: string, body?: unknown) =>
    fetch(`${platform.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  /** Creates a connector of `sim`'s kind, sets its webhook secret, subscribes the simulator, waits for its syncs. */
  const connect = async (token: string, sim: SimulatorHandle) => {
    const id = await createConnector(platform, simulatorConnector(sim, 'fair'), token);
    await subscribeUpstreamWebhooks(platform, sim.webhooks!, id, token);
    connectors[sim.connectorType] = id;
    return id;
  };

  /** Whether the change is searchable through `token`. */
  const searchable = async (token: string, sim: SimulatorHandle, change: WebhookChange) => {
    const spec = findConnectorDefinition(sim.connectorType)!.catalog.entities[change.entity]!;
    const keyType = spec.searchable?.[spec.recordKey]?.type;
    const key = keyType === 'integer' || keyType === 'number' ? Number(change.key) : change.key;
    const response = await call(
      token,
      'POST',
      `/api/v1/integrations/connectors/${connectors[sim.connectorType]}/execute`,
      {
        entity: change.entity,
        action: 'search',
        params: { query: { filter: { eq: { [spec.recordKey]: key } } } },
      },
    );
    const record = ((await response.json()) as { data: Record<string, unknown>[] }).data[0];
    return record?.[change.field!] === change.value ? true : undefined;
  };

  beforeAll(async () => {
    [orb, typeform] = await Promise.all([startOrb({ size: 5 }), startTypeform({ size: 3 })]);
    platform = await startTestPlatform({
      overrides: simulatorOverrides([orb, typeform]),
      // Two webhook slots; without the organization share, A's held events would take both.
      env: { WEBHOOK_CONCURRENCY: '2' },
    });
    tokenB = (await platform.anotherOrganization()).token;
    await connect(await platform.token(), orb);
    await connect(tokenB, typeform);
    // First syncs done, so that only webhook work reaches the upstreams from here on.
    const tokenA = await platform.token();
    for (const [sim, token] of [
      [orb, tokenA],
      [typeform, tokenB],
    ] as const) {
      const catalog = findConnectorDefinition(sim.connectorType)!.catalog;
      const names = Object.values(catalog.entities)
        .filter((e) => e.searchable)
        .map((e) => e.name);
      await eventually(async () => {
        const response = await call(token, 'GET', `/api/v1/integrations/connectors/${connectors[sim.connectorType]}`);
        const view = (await response.json()) as { entities: Record<string, { status: string }> };
        return names.every((name) => view.entities[name]?.status === 'ready') ? true : undefined;
      }, 90_000);
    }
  }, 180_000);
  afterAll(async () => {
    orb?.faults.releaseAll();
    await closeInOrder(platform, orb, typeform);
  });

  it("processes B's event while A's events are held at A's upstream, A taking one slot", async () => {
    orb.faults.holdAll();
    const changesA: WebhookChange[] = [];
    for (let i = 0; i < 3; i++) {
      const change = await orb.webhooks!.edit();
      expect(change.status).toBe(202);
      changesA.push(change);
    }
    await eventually(async () => (orb.faults.waiting > 0 ? true : undefined), 10_000, 20);

    const changeB = await typeform.webhooks!.edit();
    expect(changeB.status).toBe(202);
    await eventually(() => searchable(tokenB, typeform, changeB), 15_000);
    // All that time A's events re-read one record at a time, although the worker has two slots.
    expect(orb.faults.waiting).toBe(1);

    orb.faults.releaseAll();
    const tokenA = await platform.token();
    for (const change of changesA) await eventually(() => searchable(tokenA, orb, change), 15_000);
  }, 120_000);
});
