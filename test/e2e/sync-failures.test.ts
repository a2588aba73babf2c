import { describe, expect, it } from 'vitest';
import { cleanupsAfterAll } from '../harness/cleanups.ts';
import { waitForEntity } from '../harness/connector-status.ts';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettingsFrom, startOrbSimulatorPlatform } from '../harness/orb-connector.ts';

interface ConnectorView {
  credentials_status: string;
  credentials_error: string | null;
}

describe('failures that cannot heal are not retried', () => {
  const cleanups = cleanupsAfterAll();

  it('rejected credentials end the run at once, the connector says so, and a PATCH of credentials syncs again', async () => {
    const { sim, platform } = await startOrbSimulatorPlatform(cleanups, { customers: 10, subscriptionsPerCustomer: 0 });
    const id = await createConnector(platform, {
      customer_name: 'failures',
      name: 'revoked',
      ...orbSettingsFrom(sim.apiKey, '2024-01-01T00:00:00Z'),
    });
    const first = await waitForEntity(platform, id, 'customers', (s) => s.status === 'ready' && !s.running);

    // The key is revoked upstream: every call answers 401 from now on.
    sim.faults.add({ status: 401, count: 1_000_000, pathIncludes: '/v1/customers' });
    const t0 = Date.now();
    expect(
      (await platform.call('POST', `/api/v1/integrations/connectors/${id}/sync`, { entity: 'customers' })).status,
    ).toBe(202);
    const failed = await waitForEntity(platform, id, 'customers', (s) => s.status === 'failed');
    expect(failed.error).toMatch(/credentials/);
    const view = async () =>
      (await (await platform.call('GET', `/api/v1/integrations/connectors/${id}`)).json()) as ConnectorView;
    expect((await view()).credentials_status).toBe('rejected');
    expect((await view()).credentials_error).toMatch(/credentials/);
    // BullMQ's first retry would come 5 s later (exponential backoff): none comes.
    await new Promise((r) => setTimeout(r, 6_500));
    const calls = sim.faults.requests.filter((r) => r.path === '/v1/customers' && r.at >= t0);
    expect(calls.length).toBe(1);

    // New credentials (here: the key works again upstream) → checked, stored, and a sync runs at once.
    sim.faults.clear();
    const patched = await platform.call('PATCH', `/api/v1/integrations/connectors/${id}`, {
      credentials: { api_key: sim.apiKey },
    });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as ConnectorView).credentials_status).toBe('ok');
    const healed = await waitForEntity(
      platform,
      id,
      'customers',
      (s) => s.status === 'ready' && s.last_success_at !== first.last_success_at,
    );
    expect(healed.error).toBeNull();
  }, 60_000);
});
