import { connectorSchedulerId } from '@conduit/queues';
import { runEntitySync } from '@conduit/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForEntity } from '../harness/connector-status.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import { startOrb } from '../simulators/orb/simulator.ts';

describe('connector lifecycle', () => {
  let sim: SimulatorHandle;
  let platform: TestPlatform;
  const body = (name: string) => ({
    customer_name: 'lifecycle',
    connector_type: 'ORB',
    name,
    credentials: sim.credentials,
    replication_config: sim.replicationConfig,
  });

  /** Creates a connector and waits for `entity`'s first pass; returns its id. */
  const createdAndReady = async (name: string, entity: string): Promise<string> => {
    const created = await platform.call('POST', '/api/v1/integrations/connectors', body(name));
    const id = ((await created.json()) as { connector_id: string }).connector_id;
    await waitForEntity(platform, id, entity, (s) => s.status === 'ready');
    return id;
  };

  beforeAll(async () => {
    sim = await startOrb({ size: 20 });
    platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.baseUrl }, tokenUrls: {} } });
  });
  afterAll(async () => {
    await platform?.close();
    await sim?.close();
  });

  it('matches connector_type case-insensitively and answers a second create of the same identity with 409', async () => {
    const first = await platform.call('POST', '/api/v1/integrations/connectors', body('twice'));
    expect(first.status).toBe(201);
    const created = (await first.json()) as { connector_id: string; connector_type: string };
    expect(created.connector_type).toBe('Orb');
    const second = await platform.call('POST', '/api/v1/integrations/connectors', body('twice'));
    expect(second.status).toBe(409);
    expect(JSON.stringify(await second.json())).toContain(created.connector_id);
  });

  it('renames, re-checks replaced credentials, and refuses ones the upstream rejects', async () => {
    const created = (await (await platform.call('POST', '/api/v1/integrations/connectors', body('patch'))).json()) as {
      connector_id: string;
    };
    const path = `/api/v1/integrations/connectors/${created.connector_id}`;
    const renamed = await platform.call('PATCH', path, { name: 'renamed' });
    expect(((await renamed.json()) as { name: string }).name).toBe('renamed');
    const rejected = await platform.call('PATCH', path, { credentials: sim.badCredentials });
    expect(rejected.status).toBe(400);
    expect(((await rejected.json()) as { errors: { path: string }[] }).errors[0]?.path).toBe('/credentials');
    const accepted = await platform.call('PATCH', path, { credentials: sim.credentials });
    expect(accepted.status).toBe(200);
    const live = await platform.call('POST', `${path}/execute`, { entity: 'plans', action: 'list', params: {} });
    expect(live.status).toBe(200);
  });

  it('delete removes the connector, its indexed documents and its schedule', async () => {
    const id = await createdAndReady('deleted', 'customers');
    const { copy, indexes, scheduler } = platform.api.deps;
    expect(await copy.count('Orb', 'customers', id)).toBeGreaterThan(0);
    expect(await scheduler.queue.getJobScheduler(connectorSchedulerId(id))).toBeTruthy();

    const response = await platform.call('DELETE', `/api/v1/integrations/connectors/${id}`);
    expect(response.status).toBe(204);
    expect((await platform.call('GET', `/api/v1/integrations/connectors/${id}`)).status).toBe(404);
    expect(await scheduler.queue.getJobScheduler(connectorSchedulerId(id))).toBeFalsy();
    // The DELETE removes every document written before it returns. A run still syncing another entity (invoices,
    // here) may have a batch in flight that lands just after: that run finds its connector gone at the checkpoint
    // right after the batch, or at its end, and removes what it wrote (sync-run.ts), without waiting for anything.
    for (const entity of ['customers', 'subscriptions', 'plans', 'invoices']) {
      await eventually(async () => {
        await indexes.refresh('Orb', entity);
        return (await copy.count('Orb', entity, id)) === 0 ? true : undefined;
      }, 10_000);
    }
  });

  it('a run that finds its connector deleted at its end removes what it wrote', async () => {
    const id = await createdAndReady('deleted at the end', 'plans');
    const deps = platform.worker!.deps;
    const row = (await deps.connectors.findForSync(id))!;
    // The plans fit in one write: the run's only checkpoint passes, then the row goes before the run records its
    // end. Nothing else would ever remove these documents (the row, and with it DELETE, is gone).
    const outcome = await runEntitySync(id, 'plans', deps, {
      owner: 'lifecycle-test',
      stopRequested: () => false,
      onPage: async () => {
        await deps.connectors.delete(row.organization_id, id);
      },
    });
    expect(outcome).toEqual({ status: 'skipped', reason: 'connector deleted' });
    await deps.indexes.refresh('Orb', 'plans');
    expect(await deps.copy.count('Orb', 'plans', id)).toBe(0);
  });
});
