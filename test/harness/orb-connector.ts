import { randomUUID } from 'node:crypto';
import type { ApiRuntime } from '@conduit/api';
import { Conduit } from '@conduit/client';
import { type EntityCatalog, entityOf, findConnectorDefinition } from '@conduit/connectors';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import {
  type OrbSimulator,
  type OrbSimulatorOptions,
  startOrb,
  startOrbSimulator,
} from '../simulators/orb/simulator.ts';
import { waitForIdleEntities } from './connector-status.ts';
import { createConnector } from './create-connector.ts';
import { startTestPlatform, type TestPlatform, type TestPlatformOptions } from './platform.ts';
import { subscribeUpstreamWebhooks } from './upstream-webhooks.ts';

/** The Orb kind's entities. */
export const ORB_ENTITIES: readonly string[] = ['customers', 'plans', 'subscriptions', 'invoices'];

export interface OrbConnectorFixture {
  readonly platform: TestPlatform;
  readonly sim: SimulatorHandle;
  readonly conduit: Conduit;
  readonly connectorId: string;
  close(): Promise<void>;
}

/** The kind, credentials and replication config of an Orb connector reading `apiKey`'s account from `startDate`. */
export function orbSettingsFrom(apiKey: string, startDate: string) {
  return {
    connector_type: 'Orb' as const,
    credentials: { api_key: apiKey },
    replication_config: { start_date: startDate },
  };
}

/** The same for the Orb simulator's generic handle: its key and its start date. */
export function orbSettings(sim: SimulatorHandle) {
  return orbSettingsFrom(sim.credentials.api_key as string, sim.replicationConfig.start_date as string);
}

/** The Orb simulator (its generic handle) and the platform reading from it. */
export async function startOrbPlatform(
  options: { size: number } & Omit<TestPlatformOptions, 'overrides'>,
): Promise<{ sim: SimulatorHandle; platform: TestPlatform }> {
  const { size, ...platformOptions } = options;
  const sim = await startOrb({ size });
  try {
    const platform = await startTestPlatform({
      ...platformOptions,
      overrides: { baseUrls: { ORB: sim.baseUrl }, tokenUrls: {} },
    });
    return { sim, platform };
  } catch (error) {
    await sim.close();
    throw error;
  }
}

/** The Orb simulator and a platform reading from it; `cleanups` closes both (they run last pushed first). */
export async function startOrbSimulatorPlatform(
  cleanups: (() => Promise<void>)[],
  simulator: OrbSimulatorOptions,
  options: Omit<TestPlatformOptions, 'overrides'> = {},
): Promise<{ sim: OrbSimulator; platform: TestPlatform }> {
  const sim = await startOrbSimulator(simulator);
  const platform = await startTestPlatform({ ...options, overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {} } });
  cleanups.push(
    () => sim.close(),
    () => platform.close(),
  );
  return { sim, platform };
}

/**
 * The platform with the Orb simulator and one Orb connector created through @conduit/client, once its invoices
 * have finished their first sync (searches see every invoice).
 */
export async function startOrbConnector(options: { size?: number } = {}): Promise<OrbConnectorFixture> {
  const { sim, platform } = await startOrbPlatform({ size: options.size ?? 6 });
  const conduit = new Conduit({
    baseUrl: platform.url,
    clientId: platform.clientId,
    clientSecret: platform.clientSecret,
  });
  const created = await conduit.connectors.create({ customer_name: 'acme', name: 'billing', ...orbSettings(sim) });
  const deadline = Date.now() + 120_000;
  while ((await conduit.connectors.get(created.connector_id)).entities.invoices?.status !== 'ready') {
    if (Date.now() > deadline) throw new Error('invoices did not finish their first sync');
    await new Promise((r) => setTimeout(r, 300));
  }
  return {
    platform,
    sim,
    conduit,
    connectorId: created.connector_id,
    async close() {
      await platform.close();
      await sim.close();
    },
  };
}

/**
 * An Orb connector of customer `acme` reading the simulator from `startDate`, with the simulator's webhooks
 * subscribed and its first syncs done (every entity ready and idle); returns its id.
 */
export async function orbConnectorWithWebhooks(
  platform: TestPlatform,
  sim: OrbSimulator,
  name: string,
  startDate: string,
): Promise<string> {
  const id = await createConnector(platform, {
    customer_name: 'acme',
    name,
    ...orbSettingsFrom(sim.apiKey, startDate),
  });
  await subscribeUpstreamWebhooks(platform, sim.webhooks, id);
  await waitForIdleEntities(platform, id, ORB_ENTITIES);
  return id;
}

/**
 * An Orb connector of `organizationId` written straight to the database (no upstream behind it), with its `invoices`
 * index made: for tests that write the copy themselves.
 */
export async function orbInvoicesRow(
  deps: ApiRuntime['deps'],
  organizationId: string,
  name: string,
): Promise<{ readonly connectorId: string; readonly entity: EntityCatalog }> {
  const connectorId = randomUUID();
  const entity = entityOf(findConnectorDefinition('Orb')!.catalog, 'invoices')!;
  await deps.connectors.insert({
    id: connectorId,
    organization_id: organizationId,
    connector_type: 'Orb',
    customer_name: name,
    // Distinct per connector, for lists and logs that show several.
    name: `${name} ${connectorId.slice(0, 8)}`,
    credentials_ciphertext: deps.cipher.encrypt({ api_key: 'k' }),
    config: '{}',
    replication_config: JSON.stringify({ start_date: '2023-01-01T00:00:00Z' }),
  });
  await deps.indexes.ensureIndex('Orb', entity);
  return { connectorId, entity };
}
