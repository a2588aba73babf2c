import { TokenCache } from '@conduit/connectors';
import {
  ClientsRepository,
  ConnectorsRepository,
  createDatabase,
  ensureDatabaseExists,
  migrateToLatest,
  SyncStatesRepository,
} from '@conduit/db';
import {
  AccessTokens,
  CredentialsCipher,
  createLogger,
  HostedConnectors,
  hashClientSecret,
  IndexStore,
  type Logger,
  type PlatformEnv,
  SyncScheduler,
  syncQueueName,
  type UpstreamOverrides,
  verifyClientSecret,
} from '@conduit/platform';
import { Client } from '@opensearch-project/opensearch';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { ApiDeps } from './deps.ts';
import { oauthDepsFrom } from './routes/oauth-consent/oauth-deps.ts';
import { createSearchService } from './services/search-service.ts';

export interface ApiRuntime {
  readonly deps: ApiDeps;
  close(): Promise<void>;
}

/** Connects to Postgres, Redis and OpenSearch, migrates, bootstraps the configured client, and wires the deps. */
export async function createApiRuntime(
  env: PlatformEnv,
  overrides: UpstreamOverrides,
  options: { logger?: Logger; envSource?: Readonly<Record<string, string | undefined>> } = {},
): Promise<ApiRuntime> {
  const logger = options.logger ?? createLogger({ level: env.LOG_LEVEL, base: { service: 'api' } });
  await ensureDatabaseExists(env.DATABASE_URL);
  const db = createDatabase(env.DATABASE_URL);
  await migrateToLatest(db);
  const redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
  const opensearch = new Client({ node: env.OPENSEARCH_URL });
  const connectors = new ConnectorsRepository(db);
  const clients = new ClientsRepository(db);
  const cipher = new CredentialsCipher(env.ENCRYPTION_KEY, env.ENCRYPTION_KEY_PREVIOUS.split(','));
  const indexStore = new IndexStore(opensearch, env.NAMESPACE);
  const scheduler = new SyncScheduler(redis, syncQueueName(env.NAMESPACE));

  if (env.BOOTSTRAP_ORGANIZATION && env.BOOTSTRAP_CLIENT_ID && env.BOOTSTRAP_CLIENT_SECRET) {
    await clients.upsertOrganization(env.BOOTSTRAP_ORGANIZATION, env.BOOTSTRAP_ORGANIZATION);
    const existing = await clients.find(env.BOOTSTRAP_CLIENT_ID);
    if (!existing || !(await verifyClientSecret(env.BOOTSTRAP_CLIENT_SECRET, existing.secret_hash))) {
      await clients.upsertClient({
        client_id: env.BOOTSTRAP_CLIENT_ID,
        secret_hash: await hashClientSecret(env.BOOTSTRAP_CLIENT_SECRET),
        name: 'bootstrap client',
        allowed_redirect_urls: [],
      });
    }
    await clients.grant(env.BOOTSTRAP_CLIENT_ID, env.BOOTSTRAP_ORGANIZATION);
    logger.info('bootstrap client ready', {
      client_id: env.BOOTSTRAP_CLIENT_ID,
      organization: env.BOOTSTRAP_ORGANIZATION,
    });
  }

  const deps: ApiDeps = {
    env,
    logger,
    connectors,
    syncStates: new SyncStatesRepository(db),
    clients,
    cipher,
    tokens: new AccessTokens(env.TOKEN_SIGNING_KEY, env.TOKEN_TTL_SECONDS),
    hosted: new HostedConnectors({
      cipher,
      connectors,
      overrides,
      tokenCache: new TokenCache(),
      timeoutMs: env.UPSTREAM_TIMEOUT_MS,
    }),
    indexStore,
    scheduler,
    search: createSearchService(indexStore, env.TOKEN_SIGNING_KEY),
    redis,
    probes: {
      postgres: async () => {
        await sql`select 1`.execute(db);
      },
      redis: async () => {
        await redis.ping();
      },
      opensearch: async () => {
        await opensearch.cluster.health({ timeout: '2s' });
      },
    },
  };
  // OAuth providers are configured by a family of variables (OAUTH_CLIENT_ID_<KIND>, ...), read from the raw source.
  const withOAuth: ApiDeps = { ...deps, oauth: oauthDepsFrom(deps, { source: options.envSource ?? process.env }) };
  return {
    deps: withOAuth,
    async close() {
      await scheduler.close();
      redis.disconnect();
      await opensearch.close();
      await db.destroy();
    },
  };
}
