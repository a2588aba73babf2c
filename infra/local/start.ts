import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { API_NODE_FLAGS } from '@conduit/api';
import { WORKER_NODE_FLAGS } from '@conduit/worker';

/**
 * The platform's start command: API + worker, and in the local profile (the default) the upstream
 * simulators with a bootstrap client, so the README example works offline. A variable set explicitly in the
 * environment always wins over a profile default. PROFILE=production starts API and worker only.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const profile = process.env.PROFILE ?? 'local';
const children: ChildProcess[] = [];

/**
 * Starts a child whose output the launcher repeats, line by line, prefixed with its name. `handshake`: its first
 * stdout line is for the launcher alone (the simulators' credentials) and is never repeated into the log.
 */
function startNode(
  name: string,
  script: string,
  env: NodeJS.ProcessEnv,
  flags: readonly string[] = [],
  handshake?: (line: string) => void,
): ChildProcess {
  const child = spawn(process.execPath, [...flags, join(root, script)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let awaitingHandshake = handshake !== undefined;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (awaitingHandshake) {
      awaitingHandshake = false;
      handshake?.(line);
      return;
    }
    process.stdout.write(`[${name}] ${line}\n`);
  });
  // The last lines it wrote to stderr: what a child that dies at start-up said about why.
  const said: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    process.stderr.write(`[${name}] ${line}\n`);
    said.push(line);
    if (said.length > 12) said.shift();
  });
  // 'close' comes after the child's stdio has ended, so its last words are in: say why, not just "exited (1)".
  child.on('close', (code, signal) => {
    if (stopping) return;
    const reason = said
      .filter((l) => l.trim() !== '')
      .slice(-6)
      .join('\n  ');
    process.stderr.write(
      `[start] ${name} exited (${code ?? signal})${reason ? `:\n  ${reason}` : ' without saying why'}\n` +
        '[start] stopping the platform\n',
    );
    void stop(typeof code === 'number' && code !== 0 ? code : 1);
  });
  children.push(child);
  return child;
}

/** The host:port of every simulator base URL the simulators announced. */
function simulatorHosts(env: Record<string, string>): string {
  const hosts = Object.entries(env)
    .filter(([name]) => name.startsWith('CONNECTOR_BASE_URL_'))
    .map(([, url]) => new URL(url.replaceAll(/\{[^}]*\}/g, 'x')).host);
  return [...new Set(hosts)].join(',');
}

let profileEnv: Record<string, string> = {};
if (profile === 'local') {
  // The simulators' first line carries every demo credential: it goes to .data/simulators.json, never to the log.
  const first = await new Promise<string>((resolve) => {
    startNode('simulators', 'test/simulators/main.ts', process.env, [], resolve);
  });
  const started = JSON.parse(first) as { env: Record<string, string>; credentials: unknown };
  profileEnv = {
    ...started.env,
    BOOTSTRAP_ORGANIZATION: 'demo-org',
    BOOTSTRAP_CLIENT_ID: 'demo-client',
    BOOTSTRAP_CLIENT_SECRET: 'demo-secret-change-me',
    SYNC_INTERVAL: '10m',
    // Webhook endpoints on this machine (a local receiver over http) are allowed here only.
    WEBHOOK_ALLOW_HTTP: '1',
    WEBHOOK_ALLOW_PRIVATE: '1',
    // Kinds defined at run time may call the simulators (docs/definitions.md), and nothing else internal.
    CONNECTOR_EGRESS_ALLOW: simulatorHosts(started.env),
  };
  writeFileSync(join(root, '.data/simulators.json'), `${JSON.stringify(started, null, 2)}\n`, { mode: 0o600 });
  process.stdout.write(`[start] simulators up; their credentials are in .data/simulators.json\n`);
}
// Explicit environment wins over the profile's defaults.
const env = { ...profileEnv, ...process.env };
startNode('api', 'apps/api/src/main.ts', env, API_NODE_FLAGS);
startNode('worker', 'apps/worker/src/main.ts', env, WORKER_NODE_FLAGS);

let stopping = false;
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode === null ? once(c, 'exit') : undefined)));
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
