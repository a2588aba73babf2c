import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { findConnectorDefinition } from '@conduit/connectors';
import { afterAll, describe, expect, it } from 'vitest';
import { connectWith } from '../../packages/connectors/src/core/connect.ts';
import { inheritedEnv } from '../harness/child-env.ts';
import { dropDatabase, withDatabaseName } from '../harness/databases.ts';
import { freePort } from '../harness/free-port.ts';
import { testServices } from '../harness/services.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `count` consecutive free ports (the simulators take base, base+1, ...). */
async function freeRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    const servers: Server[] = [];
    try {
      for (let i = 0; i < count; i++) {
        const s = createServer();
        s.listen(base + i, '127.0.0.1');
        await once(s, 'listening');
        servers.push(s);
      }
      return base;
    } catch {
      // taken: try another range
    } finally {
      for (const s of servers) s.close();
    }
  }
  throw new Error('no free port range');
}

interface Started {
  env: Record<string, string>;
  credentials: Record<string, { credentials: Record<string, unknown>; config: Record<string, unknown> }>;
}

/** One `./dev start` worth of simulators (test/simulators/main.ts), in its own process. */
async function startSimulators(env: Record<string, string>): Promise<{ started: Started; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(ROOT, 'test/simulators/main.ts')], {
    env: { ...inheritedEnv(), ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { started: JSON.parse(line) as Started, child };
}

async function stopProcess(child: ChildProcess): Promise<void> {
  // Already gone (by exit code, or by a signal: then exitCode stays null), or never started.
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** A connector as the platform builds it from the stored credentials, writing rotated ones back. */
function demoConnector(kind: string, started: Started, stored: { credentials: Record<string, unknown> }) {
  const suffix = kind.toUpperCase().replaceAll('-', '_');
  return connectWith(findConnectorDefinition(kind)!, stored.credentials, started.credentials[kind]!.config, {
    baseUrl: started.env[`CONNECTOR_BASE_URL_${suffix}`]!,
    tokenUrl: started.env[`CONNECTOR_TOKEN_URL_${suffix}`]!,
    onCredentialsRotated: (rotated) => {
      stored.credentials = rotated;
    },
  });
}

describe('the local profile survives restarts', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'conduit-sim-state-'));
  const running: ChildProcess[] = [];
  afterAll(async () => {
    await Promise.all(running.map(stopProcess));
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('gives the same credentials on the next start, and honours refresh tokens rotated in the previous run', async () => {
    const base = await freeRange(9);
    const env = { SIMULATOR_BASE_PORT: String(base), SIMULATOR_STATE_DIR: stateDir };
    const first = await startSimulators(env);
    running.push(first.child);

    // "Yesterday": demo connectors of the kinds whose refresh tokens rotate sync once; each stores a new token.
    const calls: Record<string, { entity: string; action: string; params: Record<string, unknown> }> = {
      'Google-Ads': { entity: 'accessible_customers', action: 'list', params: {} },
      'Snapchat-Marketing': { entity: 'organizations', action: 'list', params: {} },
    };
    const stored: Record<string, { credentials: Record<string, unknown> }> = {};
    for (const [kind, call] of Object.entries(calls)) {
      stored[kind] = { credentials: { ...first.started.credentials[kind]!.credentials } };
      const result = await demoConnector(kind, first.started, stored[kind]).execute(call);
      expect(result.type, kind).toBe('json');
      expect(stored[kind].credentials.refresh_token, kind).not.toBe(
        first.started.credentials[kind]!.credentials.refresh_token,
      );
    }
    await stopProcess(first.child);

    // "Today": the same ports and credentials, and yesterday's rotated refresh tokens still work.
    const second = await startSimulators(env);
    running.push(second.child);
    expect(second.started).toEqual(first.started);
    for (const [kind, call] of Object.entries(calls)) {
      const expired = { credentials: { ...stored[kind]!.credentials, access_token: 'expired-overnight' } };
      const result = await demoConnector(kind, second.started, expired).execute(call);
      expect(result.type, kind).toBe('json');
    }
    await stopProcess(second.child);

    // A machine with another secret (another state directory) does not honour them.
    const elsewhere = mkdtempSync(join(tmpdir(), 'conduit-sim-other-'));
    const third = await startSimulators({ ...env, SIMULATOR_STATE_DIR: elsewhere });
    running.push(third.child);
    try {
      const kind = 'Snapchat-Marketing';
      const expired = { credentials: { ...stored[kind]!.credentials, access_token: 'expired-overnight' } };
      const error = await demoConnector(kind, third.started, expired)
        .execute(calls[kind]!)
        .catch((e: unknown) => e);
      expect((error as { code?: string }).code).toBe('upstream_auth_failed');
    } finally {
      await stopProcess(third.child);
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('a worker that cannot start says why, and the launcher exits with that message', async () => {
    const services = await testServices();
    // Postgres at a port where nothing listens: neither process can start.
    const nowhere = `postgres://postgres@127.0.0.1:${await freePort()}/conduit`;
    const env = {
      ...inheritedEnv(),
      PORT: String(await freePort()),
      WORKER_METRICS_PORT: '0',
      DATABASE_URL: nowhere,
      REDIS_URL: services.redisUrl,
      OPENSEARCH_URL: services.opensearchUrl,
      NAMESPACE: `t_launcher_${process.pid}`,
    };
    const run = async (script: string, extra: Record<string, string> = {}) => {
      const child = spawn(process.execPath, [join(ROOT, script)], { env: { ...env, ...extra }, stdio: 'pipe' });
      running.push(child);
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.stdout!.resume();
      const [code] = (await once(child, 'exit')) as [number | null];
      return { code, stderr };
    };

    const worker = await run('apps/worker/src/main.ts');
    expect(worker.code).toBe(1);
    expect(worker.stderr).toMatch(/^worker could not start: connect ECONNREFUSED 127\.0\.0\.1:\d+$/m);

    // Production keys, so that the start goes as far as the database (missing keys stop it earlier).
    const launcher = await run('infra/local/start.ts', {
      PROFILE: 'production',
      ENCRYPTION_KEY: 'k'.repeat(32),
      TOKEN_SIGNING_KEY: 's'.repeat(32),
    });
    expect(launcher.code).toBe(1);
    // Whichever of API and worker fails first, the launcher repeats its reason, not just "exited (1)".
    expect(launcher.stderr).toMatch(
      /\[start\] (worker|api) exited \(1\):\n\s+(worker|api) could not start: connect ECONNREFUSED/,
    );
  });

  it('the launcher never repeats a simulator credential or the bootstrap secret into its log', async () => {
    const services = await testServices();
    const databaseUrl = withDatabaseName(services.databaseUrl, `conduit_test_launcher_${process.pid}`);
    // The launcher writes .data/simulators.json: keep a developer's own file as it was.
    const written = join(ROOT, '.data/simulators.json');
    const kept = existsSync(written) ? readFileSync(written) : undefined;
    const child = spawn(process.execPath, [join(ROOT, 'infra/local/start.ts')], {
      env: {
        ...inheritedEnv(),
        PORT: String(await freePort()),
        WORKER_METRICS_PORT: '0',
        DATABASE_URL: databaseUrl,
        REDIS_URL: services.redisUrl,
        OPENSEARCH_URL: services.opensearchUrl,
        NAMESPACE: `t_launcher_log_${process.pid}`,
        SIMULATOR_BASE_PORT: String(await freeRange(9)),
        SIMULATOR_STATE_DIR: stateDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.push(child);
    let output = '';
    const bothUp = new Promise<void>((resolve) => {
      const seen = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('api listening') && output.includes('worker started')) resolve();
      };
      child.stdout!.on('data', seen);
      child.stderr!.on('data', seen);
    });
    try {
      await Promise.race([bothUp, once(child, 'exit').then(() => Promise.reject(new Error(output)))]);
      await stopProcess(child);
      const started = JSON.parse(readFileSync(written, 'utf8')) as Started;
      const secrets = new Set<string>(['demo-secret-change-me']);
      for (const { credentials } of Object.values(started.credentials)) {
        for (const value of Object.values(credentials))
          if (typeof value === 'string' && value.length >= 8) secrets.add(value);
      }
      expect(secrets.size).toBeGreaterThan(5);
      for (const secret of secrets) expect(output, 'a credential in the launcher log').not.toContain(secret);
      expect(output).toContain('their credentials are in .data/simulators.json');
    } finally {
      await stopProcess(child);
      if (kept) writeFileSync(written, kept);
      await dropDatabase(databaseUrl);
    }
  }, 120_000);
});
