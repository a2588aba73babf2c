import { envSuffix } from '@conduit/connectors';
import type { UpstreamOverrides } from '@conduit/hosted-connectors';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';

/**
 * Points each simulator's kind at it: its CONNECTOR_BASE_URL_<KIND>, and its CONNECTOR_TOKEN_URL_<KIND> where the
 * kind has a token endpoint.
 */
export function simulatorOverrides(sims: readonly SimulatorHandle[]): UpstreamOverrides {
  const baseUrls: Record<string, string> = {};
  const tokenUrls: Record<string, string> = {};
  for (const sim of sims) {
    baseUrls[envSuffix(sim.connectorType)] = sim.baseUrl;
    if (sim.tokenUrl) tokenUrls[envSuffix(sim.connectorType)] = sim.tokenUrl;
  }
  return { baseUrls, tokenUrls };
}
