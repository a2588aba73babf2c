import type { ApiRuntime } from '@conduit/api';
import { entityOf, findConnectorDefinition } from '@conduit/connectors';
import type { ConnectorRow } from '@conduit/db';
import { runEntitySync, type SyncDeps } from '@conduit/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettingsFrom } from '../harness/orb-connector.ts';
import { closeInOrder, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { type OrbSimulator, startOrbSimulator } from '../simulators/orb/simulator.ts';

/**
 * A sync run (the worker's own code, runEntitySync) drops what another API instance kept when the changes it applies
 * concern it, through the change feed's announcements alone: the run's end-of-pass message to the API instances
 * (which also drops the connector's answers, for meta.synced_at) is held back here, so only the feed could tell them.
 */
describe('a sync drops kept answers on every API instance', () => {
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let second: ApiRuntime;
  let deps: SyncDeps;

  beforeAll(async () => {
    sim = await startOrbSimulator({ customers: 30, subscriptionsPerCustomer: 0 });
    platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {} }, worker: false });
    second = await platform.secondApi();
    const redis = platform.api.deps.redis;
    deps = {
      ...platform.api.deps,
      redis: new Proxy(redis, {
        get(target, property) {
          if (property === 'publish') return async () => 0;
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
    };
  }, 120_000);
  afterAll(() => closeInOrder(second, platform, sim));

  it('answers from memory until a pass changes a record inside the filter', async () => {
    const id = await createConnector(platform, {
      customer_name: 'acme',
      name: 'answers',
      ...orbSettingsFrom(sim.apiKey, '2020-01-01T00:00:00Z'),
    });
    const sync = () =>
      runEntitySync(id, 'customers', deps, { owner: `o-${Math.random()}`, stopRequested: () => false });
    expect(await sync()).toMatchObject({ status: 'done' });
    const row = (await second.deps.connectors.find(platform.organizationId, id)) as ConnectorRow;
    const customers = entityOf(findConnectorDefinition('Orb')!.catalog, 'customers')!;
    const target = sim.data.customers[0]!;
    const question = { query: { filter: { eq: { name: target.name } } }, limit: 10 };
    const ask = async () => {
      const answer = await second.deps.search.search(row, customers, question);
      if (answer.status !== 200) throw new Error(`answered ${answer.status}`);
      return JSON.parse(answer.body.toString()) as { data: { id: string; email: string }[]; meta: { cache: string } };
    };
    expect((await ask()).meta.cache).toBe('miss');
    expect((await ask()).meta.cache).toBe('hit');

    // Another customer's edit, read by a full pass: outside the filter before and after.
    sim.data.customers[1]!.email = 'someone.else@example.com';
    await platform.api.deps.syncStates.requestFullPass(id, ['customers']);
    expect(await sync()).toMatchObject({ status: 'done' });
    expect((await ask()).meta.cache).toBe('hit');

    // The customer's own edit: inside.
    target.email = 'changed@example.com';
    await platform.api.deps.syncStates.requestFullPass(id, ['customers']);
    expect(await sync()).toMatchObject({ status: 'done' });
    const after = await ask();
    expect(after.meta.cache).toBe('miss');
    expect(after.data.find((c) => c.id === target.id)?.email).toBe('changed@example.com');
  });
});
