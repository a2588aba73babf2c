import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { inheritedEnv } from '../harness/child-env.ts';
import { dropDatabase, withDatabaseName } from '../harness/databases.ts';
import { freePort } from '../harness/free-port.ts';
import { testServices } from '../harness/services.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GOOD_ENCRYPTION_KEY = 'e'.repeat(40);
const GOOD_SIGNING_KEY = 't'.repeat(40);

/** Starts an app's main.ts with exactly `env` (plus PATH and the compile cache) and waits for it to exit, or for `readyLine`. */
async function start(script: string, env: Record<string, string>, readyLine?: RegExp) {
  const child = spawn(process.execPath, [join(ROOT, script)], {
    env: { ...inheritedEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const ready = new Promise<'ready'>((resolve) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (readyLine?.test(stdout)) resolve('ready');
    });
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const outcome = await Promise.race([exited, ready]);
  if (outcome === 'ready') {
    child.kill('SIGTERM');
    await exited;
  }
  return { outcome, stderr, stdout };
}

describe('keys outside the local profile', () => {
  let databaseUrl: string | undefined;
  afterAll(async () => {
    if (databaseUrl) await dropDatabase(databaseUrl);
  });
  const base = async () => {
    const services = await testServices();
    databaseUrl ??= withDatabaseName(services.databaseUrl, `conduit_test_keys_${process.pid}`);
    return {
      DATABASE_URL: databaseUrl,
      REDIS_URL: services.redisUrl,
      OPENSEARCH_URL: services.opensearchUrl,
      PORT: String(await freePort()),
      WORKER_METRICS_PORT: '0',
      NAMESPACE: `t_keys_${process.pid}`,
    };
  };

  it('NODE_ENV=production without keys: the API and the worker refuse to start, naming both variables', async () => {
    const env = { ...(await base()), NODE_ENV: 'production' };
    for (const [service, script] of [
      ['api', 'apps/api/src/main.ts'],
      ['worker', 'apps/worker/src/main.ts'],
    ] as const) {
      const { outcome, stderr } = await start(script, env);
      expect(outcome).toBe(1);
      expect(stderr).toContain(`${service} could not start: invalid configuration`);
      expect(stderr).toMatch(/ENCRYPTION_KEY: must be set outside the local profile/);
      expect(stderr).toMatch(/TOKEN_SIGNING_KEY: must be set outside the local profile/);
    }
  });

  it('PROFILE=production with the public default or a short key names the variable at fault', async () => {
    const env = { ...(await base()), PROFILE: 'production' };
    const defaulted = await start('apps/api/src/main.ts', {
      ...env,
      ENCRYPTION_KEY: GOOD_ENCRYPTION_KEY,
      TOKEN_SIGNING_KEY: 'local-development-token-signing-key-change-me',
    });
    expect(defaulted.outcome).toBe(1);
    expect(defaulted.stderr).toMatch(/TOKEN_SIGNING_KEY: must be set outside the local profile/);
    expect(defaulted.stderr).not.toMatch(/ENCRYPTION_KEY:/);

    // 31 bytes: one short of 256 bits.
    const short = await start('apps/api/src/main.ts', {
      ...env,
      ENCRYPTION_KEY: 'x'.repeat(31),
      TOKEN_SIGNING_KEY: GOOD_SIGNING_KEY,
    });
    expect(short.outcome).toBe(1);
    expect(short.stderr).toMatch(/ENCRYPTION_KEY: must be at least 32 bytes outside the local profile/);
    expect(short.stderr).not.toMatch(/TOKEN_SIGNING_KEY:/);
    // The message names the variable, never its value.
    expect(short.stderr).not.toContain('x'.repeat(31));
  });

  it('starts in production with long keys, and in the local profile with the defaults', async () => {
    const env = await base();
    const production = await start(
      'apps/api/src/main.ts',
      { ...env, NODE_ENV: 'production', ENCRYPTION_KEY: GOOD_ENCRYPTION_KEY, TOKEN_SIGNING_KEY: GOOD_SIGNING_KEY },
      /api listening/,
    );
    expect(production.outcome, production.stderr).toBe('ready');
    const local = await start('apps/api/src/main.ts', { ...env, PORT: String(await freePort()) }, /api listening/);
    expect(local.outcome, local.stderr).toBe('ready');
  });
});
