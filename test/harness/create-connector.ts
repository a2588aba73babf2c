import { expect } from 'vitest';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import type { TestPlatform } from './platform.ts';

/**
 * Creates a connector through the API, expecting 201, and returns its id; `token` acts for another organization
 * (the platform's own client by default).
 */
export async function createConnector(
  platform: TestPlatform,
  body: Record<string, unknown>,
  token?: string,
): Promise<string> {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const response = await platform.call('POST', '/api/v1/integrations/connectors', body, headers);
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { connector_id: string }).connector_id;
}

/** The create body of a connector that reads the simulator, named after its kind. */
export function simulatorConnector(sim: SimulatorHandle, customerName: string): Record<string, unknown> {
  return {
    customer_name: customerName,
    connector_type: sim.connectorType,
    name: sim.connectorType,
    credentials: sim.credentials,
    config: sim.config,
    replication_config: sim.replicationConfig,
  };
}
