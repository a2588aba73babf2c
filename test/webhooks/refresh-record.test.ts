import { refreshRecord } from '@conduit/hosted-connectors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettingsFrom } from '../harness/orb-connector.ts';
import { closeInOrder, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { type OrbSimulator, startOrbSimulator } from '../simulators/orb/simulator.ts';

describe('refreshRecord: one record re-read from the upstream into the index', () => {
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let connectorId: string;

  const search = async (filter: object) => {
    const response = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'customers',
      action: 'search',
      params: { query: { filter } },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: { id: string; email: string }[] }).data;
  };
  const row = async () => (await platform.api.deps.connectors.findForSync(connectorId))!;

  beforeAll(async () => {
    sim = await startOrbSimulator({ customers: 5, subscriptionsPerCustomer: 0 });
    // No worker: nothing but refreshRecord writes to the index here.
    platform = await startTestPlatform({
      overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {} },
      worker: false,
    });
    connectorId = await createConnector(platform, {
      customer_name: 'acme',
      name: 'billing',
      ...orbSettingsFrom(sim.apiKey, '2020-01-01T00:00:00Z'),
    });
  });

  afterAll(() => closeInOrder(platform, sim));

  it('upserts the upstream record, searchable when the call returns, then follows an edit', async () => {
    const customer = sim.data.customers[0]!;
    const outcome = await refreshRecord(platform.api.deps, await row(), {
      entity: 'customers',
      params: { customer_id: customer.id },
      key: customer.id,
    });
    expect(outcome).toEqual({ status: 'upserted', key: customer.id });
    expect((await search({ eq: { id: customer.id } })).map((r) => r.email)).toEqual([customer.email]);

    customer.email = 'edited@example.com';
    await refreshRecord(platform.api.deps, await row(), {
      entity: 'customers',
      params: { customer_id: customer.id },
      key: customer.id,
    });
    expect((await search({ eq: { id: customer.id } })).map((r) => r.email)).toEqual(['edited@example.com']);
  });

  it('removes the record when the upstream answers 404', async () => {
    const customer = sim.data.customers[1]!;
    const ref = { entity: 'customers', params: { customer_id: customer.id }, key: customer.id };
    await refreshRecord(platform.api.deps, await row(), ref);
    expect(await search({ eq: { id: customer.id } })).toHaveLength(1);
    sim.data.customers.splice(1, 1);
    expect(await refreshRecord(platform.api.deps, await row(), ref)).toEqual({ status: 'removed', key: customer.id });
    expect(await search({ eq: { id: customer.id } })).toHaveLength(0);
    // Removing what is already gone is not an error (webhooks are delivered at least once).
    expect(await refreshRecord(platform.api.deps, await row(), ref)).toEqual({ status: 'removed', key: customer.id });
  });

  it('skips entities that are not replicated or have no get', async () => {
    const outcome = await refreshRecord(platform.api.deps, await row(), {
      entity: 'nope',
      params: {},
      key: 'x',
    });
    expect(outcome.status).toBe('skipped');
  });
});
