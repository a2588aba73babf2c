import { findConnectorDefinition } from '@conduit/connectors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForEntity } from '../harness/connector-status.ts';
import { createConnector, simulatorConnector } from '../harness/create-connector.ts';
import { closeInOrder, eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { simulatorOverrides } from '../harness/simulator-overrides.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import { startOrb } from '../simulators/orb/simulator.ts';
import { startTypeform } from '../simulators/typeform/simulator.ts';

/**
 * Worker slots shared between organizations: A's runs are held at its upstream (every Orb request waits until the
 * test releases it) and take at most ORGANIZATION_SYNC_CONCURRENCY slots, so B's connector syncs meanwhile.
 */
describe('sync worker slots shared fairly between organizations', () => {
  let orb: SimulatorHandle;
  let typeform: SimulatorHandle;
  let platform: TestPlatform;

  beforeAll(async () => {
    [orb, typeform] = await Promise.all([startOrb({ size: 5 }), startTypeform({ size: 3 })]);
    platform = await startTestPlatform({
      overrides: simulatorOverrides([orb, typeform]),
      // Two worker slots; without the organization cap, A's two held runs would take both.
      env: { WORKER_CONCURRENCY: '2', CONNECTOR_CONCURRENCY: '2', ORGANIZATION_SYNC_CONCURRENCY: '1' },
    });
  }, 120_000);
  afterAll(async () => {
    orb?.faults.releaseAll();
    await closeInOrder(platform, orb, typeform);
  });

  const create = (token: string, sim: SimulatorHandle) =>
    createConnector(platform, simulatorConnector(sim, 'fair'), token);

  it("syncs B's connector while A's runs are held upstream, A taking one slot at a time", async () => {
    const connectorA = await create(await platform.token(), orb);
    // A's first run reaches the upstream and is held there; the others wait for A's slot, not for the worker.
    orb.faults.holdAll();
    await eventually(async () => (orb.faults.waiting > 0 ? true : undefined), 30_000, 20);

    const { token: tokenB } = await platform.anotherOrganization();
    const connectorB = await create(tokenB, typeform);

    const entitiesB = Object.values(findConnectorDefinition('Typeform')!.catalog.entities).filter((e) => e.searchable);
    for (const entity of entitiesB) {
      const status = await eventually(async () => {
        const response = await fetch(`${platform.url}/api/v1/integrations/connectors/${connectorB}`, {
          headers: { authorization: `Bearer ${tokenB}` },
        });
        const view = (await response.json()) as { entities: Record<string, { status: string }> };
        return view.entities[entity.name]?.status === 'ready' ? 'ready' : undefined;
      }, 60_000);
      expect(status, entity.name).toBe('ready');
    }
    // All that time A held one request upstream: one run, never two, although the connector allows two.
    expect(orb.faults.waiting).toBe(1);

    orb.faults.releaseAll();
    const entitiesA = Object.values(findConnectorDefinition('Orb')!.catalog.entities).filter((e) => e.searchable);
    for (const entity of entitiesA) {
      await waitForEntity(platform, connectorA, entity.name, (s) => s.status === 'ready');
    }
  }, 180_000);
});
