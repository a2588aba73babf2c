import { AnswerCache } from '@conduit/answer-cache';
import { hashClientSecret, type PlatformEnv, signingKeysFrom, verifyClientSecret } from '@conduit/config';
import { ClientsRepository } from '@conduit/db';
import type { UpstreamOverrides } from '@conduit/hosted-connectors';
import { oauthDepsFrom } from '@conduit/oauth-consent';
import { createLogger, type Logger } from '@conduit/observability';
import { connectPlatformServices } from '@conduit/platform';
import { SEARCH_TIMEOUT_MS } from '@conduit/search-store';
import { AccessTokens } from '@conduit/trusted-calls';
import { sql } from 'kysely';
import type { ApiDeps } from './deps.ts';
import { ClientAccessCache } from './services/client-access.ts';
import { ConnectorCache } from './services/connector-cache.ts';
import { CostlySearchSlots } from './services/costly-search-slots.ts';
import { IdempotentExecutor } from './services/idempotent-execute.ts';
import { QueryVectors } from './services/query-vectors.ts';
import { createSearchService } from './services/search-service.ts';

/** A bearer token's lifetime (`expires_in`): an hour, as OAuth providers commonly issue them. */
const TOKEN_TTL_SECONDS = 3600;

/**
 * Costly searches one organization may have running or waiting across every API instance: three instances' worth
 * of one process's costly lane (2), so scaling the API out does not scale one tenant's share of the engine
 * (docs/search-cost.md).
 */
const COSTLY_SEARCHES_PER_ORGANIZATION = 6;

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
  const services = await connectPlatformServices(env, overrides, logger, 'api');
  const clients = new ClientsRepository(services.db);
  await bootstrapClient(env, clients, logger);
  const clientAccess = await ClientAccessCache.start(clients, services.redis, { namespace: env.NAMESPACE, logger });
  const answers = await AnswerCache.start({
    redis: services.redis,
    namespace: env.NAMESPACE,
    feed: services.changeFeed,
    enabled: env.ANSWER_CACHE === 'on',
    onError: (error) => logger.warn('answer cache', { error: String(error) }),
  });
  const connectorCache = await ConnectorCache.start(services.connectors, services.redis, {
    namespace: env.NAMESPACE,
    logger,
    // A finished pass moves meta.synced_at, a connector changed or deleted: its kept answers go with its row.
    onForget: (id) => answers.forgetConnector(id),
  });

  // One key per purpose (HKDF): a bearer token, an OAuth state and a search cursor never verify as each other.
  const keys = signingKeysFrom(env);
  const queryVectors = new QueryVectors(services.embeddingModel.dir);
  const deps: ApiDeps = {
    env,
    logger,
    connectors: services.connectors,
    connectorDefinitions: services.connectorDefinitions,
    connectorCache,
    syncStates: services.syncStates,
    changeFeed: services.changeFeed,
    webhookEndpoints: services.webhookEndpoints,
    clients,
    clientAccess,
    cipher: services.cipher,
    tokens: new AccessTokens(keys.accessToken, TOKEN_TTL_SECONDS),
    hosted: services.hosted,
    indexes: services.indexes,
    copy: services.copy,
    copySearch: services.copySearch,
    scheduler: services.scheduler,
    search: createSearchService(
      services.copySearch,
      services.indexes,
      keys.searchCursor,
      (connectorId, entity) =>
        connectorCache.syncedAt(
          connectorId,
          entity,
          async () => (await services.syncStates.get(connectorId, entity))?.last_success_at ?? null,
        ),
      new CostlySearchSlots({
        redis: services.redis,
        namespace: env.NAMESPACE,
        limit: COSTLY_SEARCHES_PER_ORGANIZATION,
        // The engine cancels a search at twice its timeout: a slot held longer is of an instance that died.
        staleMs: 2 * SEARCH_TIMEOUT_MS + 1000,
        logger,
      }),
      { answers, queryVector: (text) => queryVectors.of(text) },
    ),
    webhookQueue: services.webhookQueue,
    audit: services.audit,
    budgets: services.budgets,
    auditEntries: services.auditEntries,
    idempotency: new IdempotentExecutor(services.idempotencyKeys, env, logger),
    redis: services.redis,
    metrics: services.metrics,
    usage: services.usage,
    usageRows: services.usageRows,
    quotas: services.quotas,
    probes: {
      postgres: async () => {
        await sql`select 1`.execute(services.db);
      },
      redis: async () => {
        await services.redis.ping();
      },
      opensearch: async () => {
        await services.opensearch.cluster.health({ timeout: '2s' });
      },
    },
  };
  // OAuth providers are configured by a family of variables (OAUTH_CLIENT_ID_<KIND>, ...), read from the raw source.
  return {
    deps: { ...deps, oauth: oauthDepsFrom(deps, { source: options.envSource ?? process.env }) },
    close: async () => {
      await connectorCache.close();
      await answers.close();
      await clientAccess.close();
      await queryVectors.close();
      await services.close();
    },
  };
}

/** BOOTSTRAP_*: the organization and API client a fresh deployment (or a black-box test) starts with. */
async function bootstrapClient(env: PlatformEnv, clients: ClientsRepository, logger: Logger): Promise<void> {
  if (!env.BOOTSTRAP_ORGANIZATION || !env.BOOTSTRAP_CLIENT_ID || !env.BOOTSTRAP_CLIENT_SECRET) return;
  await clients.upsertOrganization(env.BOOTSTRAP_ORGANIZATION, env.BOOTSTRAP_ORGANIZATION);
  const existing = await clients.find(env.BOOTSTRAP_CLIENT_ID);
  if (!existing || !(await verifyClientSecret(env.BOOTSTRAP_CLIENT_SECRET, existing.secret_hash))) {
    await clients.upsertClient({
      client_id: env.BOOTSTRAP_CLIENT_ID,
      secret_hash: await hashClientSecret(env.BOOTSTRAP_CLIENT_SECRET),
      name: 'bootstrap client',
      allowed_redirect_urls: existing?.allowed_redirect_urls ?? [],
    });
  }
  await clients.grant(env.BOOTSTRAP_CLIENT_ID, env.BOOTSTRAP_ORGANIZATION);
  logger.info('bootstrap client ready', {
    client_id: env.BOOTSTRAP_CLIENT_ID,
    organization: env.BOOTSTRAP_ORGANIZATION,
  });
}
