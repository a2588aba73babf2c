import { Conduit } from '@conduit/client';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import { startOrb } from '../simulators/orb/simulator.ts';
import { startTestPlatform, type TestPlatform } from './platform.ts';

export interface OrbConnectorFixture {
  readonly platform: TestPlatform;
  readonly sim: SimulatorHandle;
  readonly conduit: Conduit;
  readonly connectorId: string;
  close(): Promise<void>;
}

/**
 * The platform with the Orb simulator and one Orb connector created through @conduit/client, once its invoices
 * have finished their first sync (searches see every invoice).
 */
export async function startOrbConnector(options: { size?: number } = {}): Promise<OrbConnectorFixture> {
  const sim = await startOrb({ size: options.size ?? 6 });
  const platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.baseUrl }, tokenUrls: {} } });
  const conduit = new Conduit({
    baseUrl: platform.url,
    clientId: platform.clientId,
    clientSecret: platform.clientSecret,
  });
  const created = await conduit.connectors.create({
    connector_type: 'Orb',
    customer_name: 'acme',
    name: 'billing',
    credentials: sim.credentials as { api_key: string },
    replication_config: sim.replicationConfig as { start_date: string },
  });
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
