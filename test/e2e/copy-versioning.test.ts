import { refreshRecord } from '@conduit/hosted-connectors';
import { createLogger } from '@conduit/observability';
import { createWorkerRuntime, type WorkerRuntime } from '@conduit/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EntityStatus, entityStatuses, searchAllIds, waitForEntity } from '../harness/connector-status.ts';
import { orbConnectorWithWebhooks } from '../harness/orb-connector.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { changeOf } from '../simulators/google-drive/file-factory.ts';
import { type DriveSimulator, startGoogleDriveSimulator } from '../simulators/google-drive/simulator.ts';
import type { HoldMatch } from '../simulators/kit/faults.ts';
import { randomHex } from '../simulators/kit/webhooks.ts';
import { type OrbSimulator, startOrbSimulator } from '../simulators/orb/simulator.ts';
import { orbCustomerEvent } from '../simulators/orb/webhooks.ts';

/**
 * The copy never goes back in time (docs/changes.md): each race between two writes of one record, in both orders,
 * with the real OpenSearch and the real worker. The slower read is held at the simulator (its answer computed
 * from the upstream as it was, then released when the test says), so the interleaving is the one named.
 */

const START = '2020-01-01T00:00:00Z';
const listOf =
  (path: string): HoldMatch =>
  (request) =>
    request.method === 'GET' && request.path === path;
const getOf =
  (path: string): HoldMatch =>
  (request) =>
    request.method === 'GET' && request.path === path;

async function searchOne(platform: TestPlatform, id: string, entity: string, filter: object) {
  const response = await platform.call('POST', `/api/v1/integrations/connectors/${id}/execute`, {
    entity,
    action: 'search',
    params: { query: { filter } },
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { data: Record<string, unknown>[] }).data;
}

/** Starts a pass of `entity` and returns a wait for its end (a new last_success_at, no run in flight). */
async function startPass(platform: TestPlatform, id: string, entity: string): Promise<() => Promise<EntityStatus>> {
  const before = (await entityStatuses(platform, id))[entity]!;
  const response = await platform.call('POST', `/api/v1/integrations/connectors/${id}/sync`, { entity, mode: 'full' });
  expect(response.status).toBe(202);
  return () => waitForEntity(platform, id, entity, (s) => s.last_success_at !== before.last_success_at && !s.running);
}

describe('the copy keeps the newest read of each record (Orb: sync pages, webhook re-reads, two workers)', () => {
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let second: WorkerRuntime;
  let id: string;
  const emailOf = async (key: string) => (await searchOne(platform, id, 'customers', { eq: { id: key } }))[0]?.email;
  const customer = (key: string) => sim.data.customers.find((c) => c.id === key);
  /**
   * Waits until the worker has processed the webhook event (its log line), then makes its write visible (the
   * worker leaves that to the index's own refresh).
   */
  const processed = async (eventId: string) => {
    await eventually(async () =>
      platform.logLines.some((line) => line.includes('webhook event processed') && line.includes(eventId))
        ? true
        : undefined,
    );
    await platform.api.deps.indexes.refresh('Orb', 'customers');
  };
  /** A signed customer.edited webhook naming `key`, as Orb sends it. */
  const announce = async (key: string) => {
    const { eventId, body } = orbCustomerEvent('customer.edited', { id: key });
    expect(await sim.webhooks.sender.emit(body, eventId)).toBe(202);
    return eventId;
  };

  beforeAll(async () => {
    sim = await startOrbSimulator({ customers: 6, subscriptionsPerCustomer: 0 });
    const overrides = { baseUrls: { ORB: sim.url }, tokenUrls: {} };
    platform = await startTestPlatform({ overrides });
    id = await orbConnectorWithWebhooks(platform, sim, 'races', START);
    // Another worker process on the same services (a scaled-out deployment).
    second = await createWorkerRuntime({ ...platform.api.deps.env, WORKER_METRICS_PORT: 0 }, overrides, {
      // Its lines join the platform's: it may be the one that processes a webhook event.
      logger: createLogger({ level: 'debug', write: (line) => platform.logLines.push(line) }),
    });
  }, 120_000);

  afterAll(async () => {
    await second?.close();
    await platform?.close();
    await sim?.close();
  });

  it('a page read before a webhook re-read and written after it does not bring the old email back', async () => {
    const feed = `/api/v1/integrations/connectors/${id}/changes`;
    const { meta } = (await (await platform.call('GET', `${feed}?after=latest`)).json()) as {
      meta: { cursor: string };
    };
    const held = sim.faults.hold(listOf('/v1/customers'));
    const passEnded = await startPass(platform, id, 'customers');
    await held.reached; // the page holds every customer as it was
    const change = await sim.webhooks.edit();
    expect(change.status).toBe(202);
    await eventually(async () => ((await emailOf(change.key)) === change.value ? true : undefined));
    held.release();
    await passEnded();
    expect(await emailOf(change.key)).toBe(change.value);
    // The change feed has the re-read's update only: the page's older read was never applied.
    const after = (await (await platform.call('GET', `${feed}?after=${meta.cursor}`)).json()) as {
      data: { type: string; key: string; source: string; record: { email: string } }[];
    };
    expect(after.data.map((e) => [e.type, e.key, e.source, e.record.email])).toEqual([
      ['record.updated', change.key, 'webhook', change.value],
    ]);
  }, 90_000);

  it('a webhook re-read before a page and written after it does not replace the newer page', async () => {
    const key = sim.data.customers[1]!.id;
    const held = sim.faults.hold(getOf(`/v1/customers/${key}`));
    const eventId = await announce(key);
    await held.reached; // the re-read holds the customer as it was
    customer(key)!.email = 'read-by-the-page@example.com';
    const passEnded = await startPass(platform, id, 'customers');
    await passEnded();
    expect(await emailOf(key)).toBe('read-by-the-page@example.com');
    held.release();
    await processed(eventId);
    expect(await emailOf(key)).toBe('read-by-the-page@example.com');
  }, 90_000);

  it('a full pass that began before a re-read does not remove the record the re-read found', async () => {
    const removed = sim.data.customers.splice(2, 1)[0]!;
    const held = sim.faults.hold(listOf('/v1/customers'));
    const passEnded = await startPass(platform, id, 'customers');
    await held.reached; // the pass's page does not have the customer
    // It comes back upstream, and its webhook's re-read finds it.
    sim.data.customers.push({ ...removed, email: 'back-again@example.com' });
    await processed(await announce(removed.id));
    expect(await emailOf(removed.id)).toBe('back-again@example.com');
    held.release();
    await passEnded();
    expect(await emailOf(removed.id)).toBe('back-again@example.com');
  }, 90_000);

  it('a re-read older than a full pass removal, written after it, does not bring the record back', async () => {
    const key = sim.data.customers[3]!.id;
    const held = sim.faults.hold(getOf(`/v1/customers/${key}`));
    const eventId = await announce(key);
    await held.reached; // the re-read found the customer
    sim.data.customers.splice(sim.data.customers.indexOf(customer(key)!), 1);
    const passEnded = await startPass(platform, id, 'customers');
    const status = await passEnded();
    expect(await emailOf(key)).toBeUndefined();
    held.release();
    await processed(eventId);
    expect(await emailOf(key)).toBeUndefined();
    // The tombstone is not a record: the entity's count and search agree with the upstream.
    expect(status.record_count).toBe(sim.data.customers.length);
    expect((await searchAllIds(platform, id, 'customers')).sort()).toEqual(sim.data.customers.map((c) => c.id).sort());
  }, 90_000);

  it('two workers re-reading the same record: the newer read stays, whichever writes last', async () => {
    const row = (await platform.api.deps.connectors.findForSync(id))!;
    const workers = [platform.worker!, second];
    for (const [first, then] of [workers, [...workers].reverse()] as [WorkerRuntime, WorkerRuntime][]) {
      const key = sim.data.customers[0]!.id;
      const request = { entity: 'customers', params: { customer_id: key }, key, refresh: 'wait_for' as const };
      const held = sim.faults.hold(getOf(`/v1/customers/${key}`));
      const older = refreshRecord(first.deps, row, request);
      await held.reached;
      const newest = `newest-${randomHex(3)}@example.com`;
      customer(key)!.email = newest;
      await refreshRecord(then.deps, row, request);
      expect(await emailOf(key)).toBe(newest);
      held.release();
      expect(await older).toEqual({ status: 'upserted', key });
      expect(await emailOf(key)).toBe(newest);
    }
  }, 90_000);
});

describe('Google Drive: read-your-writes against a late sync page, and the changes feed against a late re-read', () => {
  let sim: DriveSimulator;
  let platform: TestPlatform;
  let id: string;
  const execute = async (body: unknown) => {
    const response = await platform.call('POST', `/api/v1/integrations/connectors/${id}/execute`, body);
    expect(response.status, await response.clone().text()).toBe(200);
    return response.json();
  };
  const nameOf = async (fileId: string) => (await searchOne(platform, id, 'files', { eq: { id: fileId } }))[0]?.name;

  beforeAll(async () => {
    sim = await startGoogleDriveSimulator({ files: 10 });
    platform = await startTestPlatform({
      overrides: { baseUrls: { GOOGLE_DRIVE: `${sim.url}/drive/v3` }, tokenUrls: { GOOGLE_DRIVE: `${sim.url}/token` } },
    });
    const created = await platform.call('POST', '/api/v1/integrations/connectors', {
      customer_name: 'drive',
      connector_type: 'Google-Drive',
      name: 'files',
      credentials: { client_id: sim.clientId, client_secret: sim.clientSecret, refresh_token: sim.refreshToken },
      replication_config: { start_date: '2024-01-01T00:00:00Z' },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    id = ((await created.json()) as { connector_id: string }).connector_id;
    await waitForEntity(platform, id, 'files', (s) => s.status === 'ready' && !s.running);
  }, 90_000);
  afterAll(async () => {
    await platform?.close();
    await sim?.close();
  });

  const fileInCopy = async (n: number) => (await searchAllIds(platform, id, 'files')).sort()[n]!;

  it('a page read before an update through execute, written after it, does not undo the update', async () => {
    const fileId = await fileInCopy(0);
    const held = sim.faults.hold(listOf('/drive/v3/files'));
    const passEnded = await startPass(platform, id, 'files');
    await held.reached;
    await execute({ entity: 'files', action: 'update', params: { fileId, name: 'renamed-through-execute.txt' } });
    expect(await nameOf(fileId)).toBe('renamed-through-execute.txt');
    held.release();
    await passEnded();
    expect(await nameOf(fileId)).toBe('renamed-through-execute.txt');
  }, 90_000);

  it("read-your-writes' re-read older than a page, written after it, does not replace the page", async () => {
    const fileId = await fileInCopy(1);
    const held = sim.faults.hold(getOf(`/drive/v3/files/${fileId}`));
    const updated = execute({ entity: 'files', action: 'update', params: { fileId, name: 'the-write.txt' } });
    await held.reached; // the re-read after the write holds the file as the write left it
    sim.data.files.find((f) => f.id === fileId)!.name = 'renamed-after-the-write.txt';
    const passEnded = await startPass(platform, id, 'files');
    await passEnded();
    expect(await nameOf(fileId)).toBe('renamed-after-the-write.txt');
    held.release();
    await updated;
    expect(await nameOf(fileId)).toBe('renamed-after-the-write.txt');
  }, 90_000);

  it("the changes feed's removal, newer than a re-read written after it, keeps the file removed", async () => {
    const fileId = await fileInCopy(2);
    const held = sim.faults.hold(getOf(`/drive/v3/files/${fileId}`));
    const updated = execute({ entity: 'files', action: 'update', params: { fileId, name: 'about-to-go.txt' } });
    await held.reached; // the re-read found the file
    const file = sim.data.files.find((f) => f.id === fileId)!;
    sim.data.files.splice(sim.data.files.indexOf(file), 1);
    sim.data.changes.push(changeOf(file, sim.data.changes.length + 1, true));
    // An incremental run reads the changes feed, which names the file removed.
    const before = (await entityStatuses(platform, id)).files!;
    expect(
      (await platform.call('POST', `/api/v1/integrations/connectors/${id}/sync`, { entity: 'files' })).status,
    ).toBe(202);
    await waitForEntity(platform, id, 'files', (s) => s.last_success_at !== before.last_success_at && !s.running);
    expect(await nameOf(fileId)).toBeUndefined();
    held.release();
    await updated;
    expect(await nameOf(fileId)).toBeUndefined();
  }, 90_000);
});
