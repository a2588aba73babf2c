import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envSuffix } from '@conduit/connectors';
import { SIMULATORS } from './index.ts';

/**
 * Starts every upstream simulator on fixed local ports and prints the environment that points the platform
 * at them (the start command's local profile), plus the credentials each one accepts.
 *
 * Everything a demo connector holds is stable from one run to the next: the ports (so base URLs
 * do not move), the seeded data and credentials, and the refresh tokens the simulators rotate, which are signed
 * with a secret kept in SIMULATOR_STATE_DIR (default .data/) so that a later run honours them.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const basePort = Number(process.env.SIMULATOR_BASE_PORT ?? 4100);
const stateDir = process.env.SIMULATOR_STATE_DIR ?? join(root, '.data');
const env: Record<string, string> = {};
const credentials: Record<string, unknown> = {};

/** The secret of this machine's local profile: created once, then read on every start. */
function tokenSecret(): string {
  const file = join(stateDir, 'simulator-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(stateDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

const secret = tokenSecret();
let port = basePort;
for (const [connectorType, start] of Object.entries(SIMULATORS)) {
  const sim = await start({ port: port++, size: 40, tokenSecret: secret });
  env[`CONNECTOR_BASE_URL_${envSuffix(connectorType)}`] = sim.baseUrl;
  if (sim.tokenUrl) env[`CONNECTOR_TOKEN_URL_${envSuffix(connectorType)}`] = sim.tokenUrl;
  credentials[connectorType] = {
    credentials: sim.credentials,
    config: sim.config,
    replication_config: sim.replicationConfig,
  };
}
process.stdout.write(`${JSON.stringify({ env, credentials })}\n`);
