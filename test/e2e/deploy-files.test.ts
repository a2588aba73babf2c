import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PlatformEnv } from '@conduit/config';
import { WORKER_NODE_FLAGS } from '@conduit/worker';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string; target?: string };
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
}

/** infra/compose.yaml with the YAML merge keys (<<) applied, as Compose reads it. */
const compose = parse(readFileSync(join(ROOT, 'infra/compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};

/** Issue 17 item 9: the deploy files run what the repository runs, configured by the platform's own variables. */
describe('infra/compose.yaml and the Dockerfile', () => {
  it('has OpenSearch, Postgres, Redis, the API and the worker', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'opensearch', 'postgres', 'redis', 'worker']);
  });

  it('runs each app with the same flags and entry point as the launcher, from an image the Dockerfile builds', () => {
    const { api, worker } = compose.services;
    expect(api!.build).toMatchObject({ context: '..', dockerfile: 'Dockerfile', target: 'app' });
    expect(worker!.image).toBe(api!.image);
    expect(api!.command).toEqual(['node', 'apps/api/src/main.ts']);
    expect(worker!.command).toEqual(['node', ...WORKER_NODE_FLAGS, 'apps/worker/src/main.ts']);
    for (const service of [api!, worker!]) expect(existsSync(join(ROOT, service.command!.at(-1)!))).toBe(true);
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:24\S* AS app$/m);
  });

  it('configures both apps only with variables the platform reads, pointing at the compose services', () => {
    const known = new Set(Object.keys(PlatformEnv.shape));
    for (const name of ['api', 'worker']) {
      const environment = compose.services[name]!.environment!;
      for (const key of Object.keys(environment)) {
        expect(known.has(key) || key === 'PUBLIC_BASE_URL', `${name}: ${key}`).toBe(true);
      }
      expect(environment.DATABASE_URL).toContain('@postgres:5432/');
      expect(environment.REDIS_URL).toBe('redis://redis:6379/0');
      expect(environment.OPENSEARCH_URL).toBe('http://opensearch:9200');
      // Secrets are required from the operator, never the local development defaults.
      expect(environment.ENCRYPTION_KEY).toMatch(/^\$\{ENCRYPTION_KEY:\?/);
      expect(environment.TOKEN_SIGNING_KEY).toMatch(/^\$\{TOKEN_SIGNING_KEY:\?/);
      for (const dependency of ['postgres', 'redis', 'opensearch'])
        expect(compose.services[name]!.depends_on?.[dependency]?.condition).toBe('service_healthy');
    }
    // The worker waits for the API, which migrates a fresh database first.
    expect(compose.services.worker!.depends_on?.api?.condition).toBe('service_healthy');
  });

  it('passes `docker compose config` where a Docker CLI with Compose exists (skips cleanly otherwise)', () => {
    const output = execFileSync(join(ROOT, 'infra/scripts/check-compose.sh'), { encoding: 'utf8' });
    expect(output).toMatch(/\[compose\] (infra\/compose\.yaml is valid|no docker compose CLI here: skipping)/);
  });
});
