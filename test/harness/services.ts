import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { localDatabaseUrl } from '@conduit/config';

export interface ServiceUrls {
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly opensearchUrl: string;
}

let resolved: Promise<ServiceUrls> | undefined;

/**
 * Where the tests find Postgres, Redis and OpenSearch: explicit env vars first; else, when a Docker engine
 * answers, throwaway containers (testcontainers); else the local services that ./dev starts on this machine.
 */
export function testServices(): Promise<ServiceUrls> {
  resolved ??= resolve();
  return resolved;
}

async function resolve(): Promise<ServiceUrls> {
  const local: ServiceUrls = {
    databaseUrl: process.env.DATABASE_URL ?? localDatabaseUrl('conduit_test'),
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/1',
    opensearchUrl: process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200',
  };
  if (process.env.DATABASE_URL || process.env.OPENSEARCH_URL || !(await dockerAnswers())) return local;
  return startContainers();
}

function dockerAnswers(): Promise<boolean> {
  const socketPath = '/var/run/docker.sock';
  if (!existsSync(socketPath)) return Promise.resolve(false);
  return new Promise((done) => {
    const req = request({ socketPath, path: '/_ping', timeout: 1000 }, (res) => {
      res.resume();
      done(res.statusCode === 200);
    });
    req.on('error', () => done(false));
    req.on('timeout', () => {
      req.destroy();
      done(false);
    });
    req.end();
  });
}

async function startContainers(): Promise<ServiceUrls> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const [postgres, redis, opensearch] = await Promise.all([
    new GenericContainer('postgres:16-alpine')
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/ready to accept connections/, 2))
      .start(),
    new GenericContainer('redis:7-alpine').withExposedPorts(6379).start(),
    new GenericContainer('opensearchproject/opensearch:2.19.1')
      .withEnvironment({
        'discovery.type': 'single-node',
        DISABLE_SECURITY_PLUGIN: 'true',
        // C2 for the hottest code only, as the local node (infra/scripts/opensearch.sh says why).
        OPENSEARCH_JAVA_OPTS:
          '-Xms1g -Xmx1g -XX:Tier4InvocationThreshold=100000 -XX:Tier4MinInvocationThreshold=50000 -XX:Tier4CompileThreshold=120000 -XX:Tier4BackEdgeThreshold=400000',
      })
      .withExposedPorts(9200)
      .withWaitStrategy(Wait.forHttp('/_cluster/health', 9200))
      .start(),
  ]);
  return {
    databaseUrl: `postgres://postgres@${postgres.getHost()}:${postgres.getMappedPort(5432)}/conduit_test`,
    redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}/0`,
    opensearchUrl: `http://${opensearch.getHost()}:${opensearch.getMappedPort(9200)}`,
  };
}
