import { envSuffix } from '@conduit/connectors';
import { SIMULATORS } from './index.ts';

/**
 * Starts every upstream simulator on fixed local ports and prints the environment that points the platform
 * at them (the start command's local profile), plus the credentials each one accepts.
 */
const basePort = Number(process.env.SIMULATOR_BASE_PORT ?? 4100);
const env: Record<string, string> = {};
const credentials: Record<string, unknown> = {};
let port = basePort;
for (const [connectorType, start] of Object.entries(SIMULATORS)) {
  const sim = await start({ port: port++, size: 40 });
  env[`CONNECTOR_BASE_URL_${envSuffix(connectorType)}`] = sim.baseUrl;
  if (sim.tokenUrl) env[`CONNECTOR_TOKEN_URL_${envSuffix(connectorType)}`] = sim.tokenUrl;
  credentials[connectorType] = {
    credentials: sim.credentials,
    config: sim.config,
    replication_config: sim.replicationConfig,
  };
}
process.stdout.write(`${JSON.stringify({ env, credentials })}\n`);
