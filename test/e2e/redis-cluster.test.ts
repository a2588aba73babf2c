import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { findConnectorDefinition } from '@conduit/connectors';
import { queuePrefix, syncQueueName, webhookQueueName } from '@conduit/queues';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchAllIds, waitForEntity } from '../harness/connector-status.ts';
import { orbSettings, startOrbPlatform } from '../harness/orb-connector.ts';
import { eventually, type TestPlatform } from '../harness/platform.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import type { WebhookChange } from '../simulators/kit/webhooks.ts';

const run = promisify(execFile);
const SCRIPT = resolve(import.meta.dirname, '../../infra/scripts/redis-cluster.sh');
// Away from the shared Redis (6379) and from the script's own default, so a developer's cluster is left alone.
const CLUSTER_ENV = { ...process.env, REDIS_CLUSTER_PORT: process.env.REDIS_CLUSTER_TEST_PORT ?? '7300' };

/**
 * The platform on a real Redis Cluster (3 masters, 3 replicas, started by infra/scripts/redis-cluster.sh): a sync and
 * a webhook event go through their BullMQ queues, then the masters holding those queues hand over to their replicas
 * (CLUSTER FAILOVER) and both work again. About 20 s; set REDIS_CLUSTER_TESTS=1 to run it.
 */
describe.skipIf(process.env.REDIS_CLUSTER_TESTS !== '1')('Redis Cluster', () => {
  let nodes = '';
  let admin: Cluster;
  let sim: SimulatorHandle;
  let platform: TestPlatform;
  let connectorId = '';
  const entities = Object.values(findConnectorDefinition('Orb')!.catalog.entities)
    .filter((e) => e.searchable)
    .map((e) => e.name);

  beforeAll(async () => {
    const { stdout } = await run(SCRIPT, ['start'], { env: CLUSTER_ENV });
    nodes = /REDIS_CLUSTER_NODES=(\S+)/.exec(stdout)![1]!;
    admin = new Cluster(nodes.split(',').map((n) => ({ host: n.split(':')[0]!, port: Number(n.split(':')[1]) })));
    ({ sim, platform } = await startOrbPlatform({ size: 5, env: { REDIS_CLUSTER_NODES: nodes } }));
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await sim?.close();
    admin?.disconnect();
    await run(SCRIPT, ['stop'], { env: CLUSTER_ENV });
  }, 60_000);

  const searchable = async (change: WebhookChange) => {
    const response = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: change.entity,
      action: 'search',
      params: { query: { filter: { eq: { id: change.key } } } },
    });
    const record = ((await response.json()) as { data: Record<string, unknown>[] }).data[0];
    return record?.[change.field!] === change.value ? true : undefined;
  };

  /** Each entity's last completed pass, so a later sync can be told apart. */
  const lastPasses = async () => {
    const passes: Record<string, string | null> = {};
    for (const entity of entities) {
      passes[entity] = (await waitForEntity(platform, connectorId, entity, (s) => !s.running)).last_success_at;
    }
    return passes;
  };

  /** Every record of every entity is searchable once the passes after `before` completed. */
  const syncedAfter = async (before: Record<string, string | null>) => {
    for (const entity of entities) {
      const status = await waitForEntity(
        platform,
        connectorId,
        entity,
        (s) => s.status === 'ready' && !s.running && s.last_success_at !== before[entity],
      );
      expect(status.error, entity).toBeNull();
      expect((await searchAllIds(platform, connectorId, entity)).sort(), entity).toEqual(
        [...sim.expectedKeys(entity)].sort(),
      );
    }
  };

  it('keeps each queue in one slot, and syncs and applies a webhook event through the cluster', async () => {
    const created = await platform.call('POST', '/api/v1/integrations/connectors', {
      customer_name: 'cluster',
      name: 'cluster',
      ...orbSettings(sim),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    connectorId = ((await created.json()) as { connector_id: string }).connector_id;
    const secret = sim.webhooks!.newSecret();
    const patched = await platform.call('PATCH', `/api/v1/integrations/connectors/${connectorId}`, {
      webhook_secret: secret,
    });
    expect(patched.status).toBe(200);
    sim.webhooks!.sender.subscribe(`${platform.url}/api/v1/integrations/connectors/${connectorId}/webhooks`, secret);
    await syncedAfter(Object.fromEntries(entities.map((e) => [e, null])));

    // BullMQ's keys of each queue carry the queue's hash tag, so its multi-key scripts never cross a slot.
    for (const queue of [syncQueueName(platform.namespace), webhookQueueName(platform.namespace)]) {
      const master = await masterOf(admin, queue);
      const keys = await master.keys(`${queuePrefix(queue)}:*`);
      expect(keys.length, queue).toBeGreaterThan(0);
    }

    const change = await sim.webhooks!.edit();
    expect(change.status).toBe(202);
    await eventually(() => searchable(change), 20_000);
  }, 120_000);

  it('syncs and applies webhook events again after the masters of both queues failed over to their replicas', async () => {
    const before = await lastPasses();
    const queues = [syncQueueName(platform.namespace), webhookQueueName(platform.namespace)];
    const masters = new Set<string>();
    for (const queue of queues) {
      const master = await masterOf(admin, queue);
      masters.add(`${master.options.host}:${master.options.port}`);
    }
    for (const address of masters) await failOver(admin, address);

    for (const entity of entities) {
      const response = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/sync`, {
        entity,
        mode: 'full',
      });
      expect(response.status, await response.clone().text()).toBe(202);
    }
    await syncedAfter(before);
    const change = await sim.webhooks!.edit();
    expect(change.status).toBe(202);
    await eventually(() => searchable(change), 20_000);
  }, 120_000);
});

/** The master node serving the slot of `queue`'s hash tag. */
async function masterOf(admin: Cluster, queue: string) {
  const slot = Number(await admin.cluster('KEYSLOT', `{${queue}}`));
  const node = admin.nodes('master').find((n) => {
    const ranges = (admin as unknown as { slots: string[][] }).slots[slot];
    return ranges?.[0] === `${n.options.host}:${n.options.port}`;
  });
  if (!node) throw new Error(`no master for slot ${slot}`);
  return node;
}

/** Promotes the replica of the master at `address` (CLUSTER FAILOVER on the replica), and waits for the new map. */
async function failOver(admin: Cluster, address: string) {
  const [host, port] = address.split(':');
  const master = admin.nodes('master').find((n) => n.options.host === host && String(n.options.port) === port)!;
  const masterId = String(await master.cluster('MYID'));
  const replicaLine = String(await master.cluster('NODES'))
    .split('\n')
    .find((line) => line.includes('slave') && line.includes(masterId));
  const replicaAddress = replicaLine!.split(' ')[1]!.split('@')[0]!;
  const [replicaHost, replicaPort] = replicaAddress.split(':');
  const replica = new Redis(Number(replicaPort), replicaHost!);
  try {
    await replica.cluster('FAILOVER');
    await eventually(async () => ((await replica.role())[0] === 'master' ? true : undefined), 15_000, 100);
    await eventually(async () => ((await master.role())[0] === 'slave' ? true : undefined), 15_000, 100);
  } finally {
    replica.disconnect();
  }
}
