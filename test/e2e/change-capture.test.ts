import { describe, expect, it } from 'vitest';
import { cleanupsAfterAll } from '../harness/cleanups.ts';
import { entityStatuses, searchAllIds, waitForEntity } from '../harness/connector-status.ts';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettingsFrom, startOrbSimulatorPlatform } from '../harness/orb-connector.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import type { OrbSimulator } from '../simulators/orb/simulator.ts';
import { paypalTime } from '../simulators/paypal-transaction/data.ts';
import { startPaypalTransactionSimulator } from '../simulators/paypal-transaction/simulator.ts';
import { startSentrySimulator } from '../simulators/sentry/simulator.ts';

const START = '2024-01-01T00:00:00Z';
const HOUR = 3_600_000;

interface ConnectorView {
  credentials_status: string;
  credentials_error: string | null;
  entities: Record<string, { status: string; error: string | null; last_full_sync_at: string | null }>;
}

const create = (platform: TestPlatform, body: Record<string, unknown>) =>
  createConnector(platform, { customer_name: 'cc', ...body });

const createOrb = (platform: TestPlatform, sim: OrbSimulator, name: string) =>
  create(platform, { name, ...orbSettingsFrom(sim.apiKey, START) });

async function search(platform: TestPlatform, id: string, entity: string, query: unknown) {
  const response = await platform.call('POST', `/api/v1/integrations/connectors/${id}/execute`, {
    entity,
    action: 'search',
    params: { query, limit: 100 },
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as { data: Record<string, unknown>[]; meta: { synced_at: string | null } };
}

const sync = (platform: TestPlatform, id: string, body: unknown) =>
  platform.call('POST', `/api/v1/integrations/connectors/${id}/sync`, body);

describe('change capture: edits, deletions and late data reach the copy', () => {
  const cleanups = cleanupsAfterAll();

  it('Orb: an edit that keeps created_at and a deletion both reach search after a full pass (on demand)', async () => {
    const { sim, platform } = await startOrbSimulatorPlatform(cleanups, { customers: 30, subscriptionsPerCustomer: 0 });
    const id = await createOrb(platform, sim, 'full-on-demand');
    const first = await waitForEntity(platform, id, 'customers', (s) => s.status === 'ready' && !s.running);
    const afterFirst = (await entityStatuses(platform, id)).customers as unknown as { last_full_sync_at: string };
    // The first pass reads everything from start_date: it is a full pass.
    expect(afterFirst.last_full_sync_at).toBeTruthy();

    const inCopy = sim.data.customers.filter((c) => Date.parse(c.created_at) >= Date.parse(START));
    const edited = inCopy[0]!;
    const deleted = inCopy[1]!;
    edited.email = 'edited-upstream@example.com';
    sim.data.customers.splice(sim.data.customers.indexOf(deleted), 1);

    // An incremental run cannot see either change: created_at did not move, and Orb lists no deletions.
    expect((await sync(platform, id, { entity: 'customers', mode: 'incremental' })).status).toBe(202);
    const second = await waitForEntity(
      platform,
      id,
      'customers',
      (s) => s.last_success_at !== first.last_success_at && !s.running,
    );
    expect((await search(platform, id, 'customers', { filter: { eq: { id: edited.id } } })).data[0]?.email).not.toBe(
      'edited-upstream@example.com',
    );
    expect(await searchAllIds(platform, id, 'customers')).toContain(deleted.id);

    expect((await sync(platform, id, { entity: 'customers', mode: 'full' })).status).toBe(202);
    await waitForEntity(platform, id, 'customers', (s) => s.last_success_at !== second.last_success_at && !s.running);
    const after = await search(platform, id, 'customers', { filter: { eq: { id: edited.id } } });
    expect(after.data[0]?.email).toBe('edited-upstream@example.com');
    expect(await searchAllIds(platform, id, 'customers')).not.toContain(deleted.id);
    const view = (await (await platform.call('GET', `/api/v1/integrations/connectors/${id}`)).json()) as ConnectorView;
    expect(Date.parse(view.entities.customers!.last_full_sync_at!)).toBeGreaterThan(
      Date.parse(afterFirst.last_full_sync_at),
    );
    // Search answers say how fresh they are: the end of the last completed pass.
    expect(after.meta.synced_at).toBe((await entityStatuses(platform, id)).customers?.last_success_at);
  }, 120_000);

  it('a sync request with a bad mode or entity is a 400 naming the field', async () => {
    const { sim, platform } = await startOrbSimulatorPlatform(
      cleanups,
      { customers: 3, subscriptionsPerCustomer: 0 },
      { worker: false },
    );
    const id = await createOrb(platform, sim, 'bad-sync');
    const before = await search(platform, id, 'customers', {});
    expect(before.meta.synced_at).toBeNull();
    for (const [body, path] of [
      [{ mode: 'sometimes' }, '/mode'],
      [{ entity: 'nope', mode: 'full' }, '/entity'],
    ] as const) {
      const response = await sync(platform, id, body);
      expect(response.status).toBe(400);
      const problem = (await response.json()) as { errors: { path: string }[] };
      expect(problem.errors.map((e) => e.path)).toContain(path);
    }
  }, 60_000);

  it('the periodic full pass runs on its own (FULL_SYNC_INTERVAL)', async () => {
    const { sim, platform } = await startOrbSimulatorPlatform(
      cleanups,
      { customers: 20, subscriptionsPerCustomer: 0 },
      { env: { SYNC_INTERVAL: '1s', FULL_SYNC_INTERVAL: '2s', RECONCILE_INTERVAL: '1s' } },
    );
    const id = await createOrb(platform, sim, 'periodic-full');
    await waitForEntity(platform, id, 'customers', (s) => s.status === 'ready');
    const inCopy = sim.data.customers.filter((c) => Date.parse(c.created_at) >= Date.parse(START));
    const edited = inCopy[2]!;
    const deleted = inCopy[3]!;
    edited.name = 'Renamed upstream';
    sim.data.customers.splice(sim.data.customers.indexOf(deleted), 1);
    // No sync call: the schedule's runs turn into a full pass once the last one is 2 s old.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const hit = await search(platform, id, 'customers', { filter: { eq: { id: edited.id } } });
      const ids = await searchAllIds(platform, id, 'customers');
      if (hit.data[0]?.name === 'Renamed upstream' && !ids.includes(deleted.id)) break;
      if (Date.now() > deadline) throw new Error('the periodic full pass did not bring the edit and the deletion');
      await new Promise((r) => setTimeout(r, 300));
    }
  }, 60_000);

  it('PayPal: a transaction that appears 2.5 h late is still replicated (3 h lookback)', async () => {
    // Every transaction within the last 30 days, so the copy's newest one is the simulator's newest.
    const sim = await startPaypalTransactionSimulator({ size: 3, spanDays: 30 });
    const platform = await startTestPlatform({
      overrides: {
        baseUrls: { PAYPAL_TRANSACTION: sim.url },
        tokenUrls: { PAYPAL_TRANSACTION: `${sim.url}/v1/oauth2/token` },
      },
    });
    cleanups.push(
      () => sim.close(),
      () => platform.close(),
    );
    const start = new Date(sim.data.anchor - 60 * 24 * HOUR).toISOString().replace('.000Z', 'Z');
    const id = await create(platform, {
      connector_type: 'Paypal-Transaction',
      name: 'late',
      credentials: { client_id: sim.clientId, client_secret: sim.clientSecret },
      replication_config: { start_date: start },
    });
    const first = await waitForEntity(platform, id, 'transactions', (s) => s.status === 'ready' && !s.running);
    const cursor = Math.max(
      ...sim.data.transactions.map((t) =>
        Date.parse(t.transaction_info.transaction_updated_date.replace('+0000', 'Z')),
      ),
    );
    // Executed 2.5 h before the newest transaction the first run saw, listed only now.
    const late = structuredClone(sim.data.transactions.find((t) => t.balance_affecting)!);
    late.transaction_info.transaction_id = 'LATE0000000000001';
    late.transaction_info.transaction_initiation_date = paypalTime(cursor - 2.5 * HOUR);
    late.transaction_info.transaction_updated_date = paypalTime(cursor - 2.5 * HOUR);
    sim.data.transactions.push(late);

    expect((await sync(platform, id, { entity: 'transactions', mode: 'incremental' })).status).toBe(202);
    await waitForEntity(platform, id, 'transactions', (s) => s.last_success_at !== first.last_success_at && !s.running);
    const copy = await search(platform, id, 'transactions', {});
    const ids = copy.data.map((r) => (r.transaction_info as { transaction_id: string }).transaction_id);
    expect(ids).toContain('LATE0000000000001');
  }, 120_000);
});

describe('Sentry without configuration', () => {
  it('discovers every organization the token sees and replicates issues, events and releases of each', async () => {
    const sim = await startSentrySimulator({ projectsPerOrganization: 2, issuesPerProject: 3, pageSize: 4 });
    const platform = await startTestPlatform({ overrides: { baseUrls: { SENTRY: sim.url }, tokenUrls: {} } });
    try {
      const id = await create(platform, {
        connector_type: 'Sentry',
        name: 'every-org',
        credentials: { auth_token: sim.userToken },
        replication_config: { start_date: START },
      });
      const since = Date.parse(START);
      /** Ids of the records of every project dated (by `dated`) on or after START. */
      const idsSince = <T extends { id: string }>(perProject: Map<string, T[]>, dated: (record: T) => string) =>
        [...perProject.values()]
          .flat()
          .filter((r) => Date.parse(dated(r)) >= since)
          .map((r) => r.id);
      const expected: Record<string, { key: string; ids: string[] }> = {
        issues: { key: 'id', ids: idsSince(sim.data.issues, (i) => i.lastSeen) },
        events: { key: 'id', ids: idsSince(sim.data.events, (e) => e.dateCreated) },
        releases: { key: 'id', ids: [...sim.data.releases.values()].flat().map((r) => String(r.id)) },
      };
      const organizations = new Set(sim.data.projects.map((p) => p.organization.slug));
      expect(organizations.size).toBeGreaterThan(1);
      for (const [entity, { key, ids }] of Object.entries(expected)) {
        const status = await waitForEntity(platform, id, entity, (s) => s.status === 'ready' || s.status === 'failed');
        expect(status.error, entity).toBeNull();
        expect((await searchAllIds(platform, id, entity, key)).sort(), entity).toEqual([...ids].sort());
      }
      // Every organization is there, not only the first one.
      const releases = await search(platform, id, 'releases', {});
      expect(releases.data.length).toBeGreaterThan(0);
    } finally {
      await platform.close();
      await sim.close();
    }
  }, 120_000);
});
