import { basename, join, resolve } from 'node:path';
import { CredentialsCipher, type PlatformEnv } from '@conduit/config';
import { TokenCache } from '@conduit/connectors';
import {
  AuditEntriesRepository,
  AuditWriter,
  ChangeFeedRepository,
  ConnectorDefinitionsRepository,
  ConnectorsRepository,
  createDatabase,
  type Database,
  ensureDatabaseExists,
  IdempotencyKeysRepository,
  migrateToLatest,
  SyncStatesRepository,
  TableMaintenance,
  TextEmbeddingsRepository,
  WebhookEndpointsRepository,
} from '@conduit/db';
import { HostedConnectors, KindRegistry, UpstreamBudgets, type UpstreamOverrides } from '@conduit/hosted-connectors';
import { type Logger, PlatformMetrics } from '@conduit/observability';
import { connectRedis, type RedisClient, SyncScheduler, syncQueueName, WebhookQueue } from '@conduit/queues';
import { ChangeFeedSink, IndexStore, opensearchNodes } from '@conduit/search-store';
import { AuditLog, AuditSpool } from '@conduit/trusted-calls';
import { Client } from '@opensearch-project/opensearch';
import type { Kysely } from 'kysely';
import { CopyVectors } from './copy-vectors.ts';

/** What a defined kind's upstream answer may weigh at most (docs/definitions.md, "Egress"). */
const DEFINITION_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** What both apps connect to and build the same way: Postgres (migrated), Redis, OpenSearch and the shared services. */
export interface PlatformServices {
  readonly db: Kysely<Database>;
  readonly redis: RedisClient;
  readonly opensearch: Client;
  readonly connectors: ConnectorsRepository;
  /** The connector kinds organizations defined (docs/definitions.md). */
  readonly connectorDefinitions: ConnectorDefinitionsRepository;
  readonly syncStates: SyncStatesRepository;
  readonly changeFeed: ChangeFeedRepository;
  readonly webhookEndpoints: WebhookEndpointsRepository;
  readonly cipher: CredentialsCipher;
  readonly hosted: HostedConnectors;
  readonly indexStore: IndexStore;
  readonly scheduler: SyncScheduler;
  readonly metrics: PlatformMetrics;
  readonly webhookQueue: WebhookQueue;
  /** The audit trail: its writer (every API process) and its rows (GET /api/v1/audit, the retention). */
  readonly audit: AuditLog;
  readonly auditEntries: AuditEntriesRepository;
  /** Idempotency-Key claims of execute writes (the API), removed after their 24 h (the worker). */
  readonly idempotencyKeys: IdempotencyKeysRepository;
  /** VACUUM (ANALYZE) where autovacuum does not run (the worker's retention). */
  readonly maintenance: TableMaintenance;
  /** One upstream budget per connector, shared through Redis (GET .../{id} shows it). */
  readonly budgets: UpstreamBudgets;
  /** Vectors of embedded texts (search by meaning): the worker's embedding job saves them, writes attach them. */
  readonly textEmbeddings: TextEmbeddingsRepository;
  /** The embedding model: its folder (EMBEDDING_MODEL_DIR) and the name stored vectors carry. */
  readonly embeddingModel: { readonly dir: string; readonly name: string };
  close(): Promise<void>;
}

/** What both the API and the sync engine use: repositories, credentials, live connectors, the copy, the scheduler. */
export type CoreServices = Pick<
  PlatformServices,
  | 'connectors'
  | 'connectorDefinitions'
  | 'syncStates'
  | 'changeFeed'
  | 'webhookEndpoints'
  | 'cipher'
  | 'hosted'
  | 'indexStore'
  | 'scheduler'
  | 'redis'
  | 'metrics'
>;

export async function connectPlatformServices(
  env: PlatformEnv,
  overrides: UpstreamOverrides,
  logger: Logger,
  service: 'api' | 'worker',
): Promise<PlatformServices> {
  await ensureDatabaseExists(env.DATABASE_URL);
  const db = createDatabase(env.DATABASE_URL, 10, (error) =>
    logger.warn('postgres connection ended', { error: error.message }),
  );
  await migrateToLatest(db);
  const redis = connectRedis(env, { maxRetriesPerRequest: null });
  // ioredis reconnects by itself; without a listener its connection errors would be unhandled events.
  redis.on('error', (error: Error) => logger.warn('redis connection error', { error: error.message }));
  const nodes = opensearchNodes(env.OPENSEARCH_URL);
  // With several nodes the client spreads requests over them and retries one whose node is unreachable elsewhere.
  const opensearch = new Client({ nodes, maxRetries: Math.max(3, 2 * nodes.length) });
  const connectors = new ConnectorsRepository(db);
  const connectorDefinitions = new ConnectorDefinitionsRepository(db);
  const cipher = new CredentialsCipher(env.ENCRYPTION_KEY, env.ENCRYPTION_KEY_PREVIOUS.split(','));
  const changeFeed = new ChangeFeedRepository(db);
  const textEmbeddings = new TextEmbeddingsRepository(db);
  const embeddingModel = { dir: resolve(env.EMBEDDING_MODEL_DIR), name: basename(resolve(env.EMBEDDING_MODEL_DIR)) };
  const vectors = new CopyVectors(textEmbeddings, redis, env.NAMESPACE, embeddingModel.name);
  const indexStore = new IndexStore(opensearch, env.NAMESPACE, {
    searchUrl: env.OPENSEARCH_URL,
    searchRequests: env.OPENSEARCH_SEARCH_REQUESTS,
    replicas: env.OPENSEARCH_REPLICAS ?? (nodes.length > 1 ? 1 : 0),
    transport: {
      costlyRequests: env.OPENSEARCH_COSTLY_SEARCHES,
      perTenantWaiting: env.SEARCH_QUEUE_PER_ORGANIZATION,
      perTenantCostlyWaiting: env.SEARCH_COSTLY_QUEUE_PER_ORGANIZATION,
      timeoutMs: env.SEARCH_TIMEOUT_MS,
    },
    changes: new ChangeFeedSink(changeFeed),
    bulk: { flushBytes: env.OPENSEARCH_BULK_BYTES, concurrency: env.OPENSEARCH_BULK_CONCURRENCY },
    vectors,
  });
  const scheduler = new SyncScheduler(redis, syncQueueName(env.NAMESPACE));
  const syncStates = new SyncStatesRepository(db);
  const budgets: UpstreamBudgets = new UpstreamBudgets(redis, env.NAMESPACE, {
    onWait: (lane, waitMs) => metrics.budgetWait.observe({ lane }, waitMs / 1000),
  });
  let auditSpool: AuditSpool | undefined;
  const metrics = new PlatformMetrics(service, {
    budgets: () => budgets.recentViews(),
    queue: scheduler.queue,
    entityLag: () => syncStates.lagByEntity(),
    logger,
    // Read when scraped; the spool is opened below.
    ...(env.AUDIT_COMMIT === 'spool' && service === 'api' ? { auditSpoolBacklog: () => auditSpool?.backlogBytes } : {}),
  });
  const webhookQueue = new WebhookQueue(redis, env.NAMESPACE);
  // The trail's writes on connections of their own (opened on first use): entries flushed to disk unless
  // AUDIT_COMMIT=async; the outcomes of AUDIT_COMMIT=intent not flushed, and apart, so that an outcome never waits
  // behind an intent's flush.
  const noFlush = { synchronous_commit: 'off' };
  // AUDIT_COMMIT=spool: the entries' writer ships the spool's batches, each flushed to disk (synchronous_commit on,
  // whatever the server's default), since the spool's file is removed once shipped. The worker writes no entries.
  const auditEntriesWriter = new AuditWriter(
    env.DATABASE_URL,
    env.AUDIT_COMMIT === 'async' ? noFlush : { synchronous_commit: 'on' },
  );
  const auditOutcomesWriter = new AuditWriter(env.DATABASE_URL, noFlush);
  // Connects only when a dead process's spool file is found.
  const auditRecoveryWriter = new AuditWriter(env.DATABASE_URL, { synchronous_commit: 'on' });
  auditSpool =
    env.AUDIT_COMMIT === 'spool' && service === 'api'
      ? await AuditSpool.open(auditEntriesWriter, {
          dir: spoolDirectory(env),
          maxBacklogBytes: env.AUDIT_SPOOL_BACKLOG_BYTES,
          recoveryTarget: auditRecoveryWriter,
          onError: (message, error) => logger.warn(message, { error: String(error) }),
        })
      : undefined;
  const auditEntries = new AuditEntriesRepository(db);
  return {
    audit: new AuditLog(auditSpool ?? auditEntriesWriter, {
      outcomes: auditOutcomesWriter,
      intents: env.AUDIT_COMMIT === 'intent',
    }),
    auditEntries,
    idempotencyKeys: new IdempotencyKeysRepository(db),
    maintenance: new TableMaintenance(db),
    db,
    redis,
    opensearch,
    connectors,
    connectorDefinitions,
    syncStates,
    changeFeed,
    webhookEndpoints: new WebhookEndpointsRepository(db),
    cipher,
    hosted: new HostedConnectors({
      kinds: new KindRegistry({
        definitions: connectorDefinitions,
        egress: {
          allow: env.CONNECTOR_EGRESS_ALLOW.split(',').filter(Boolean),
          maxResponseBytes: DEFINITION_MAX_RESPONSE_BYTES,
        },
      }),
      cipher,
      connectors,
      overrides,
      tokenCache: new TokenCache(),
      timeoutMs: env.UPSTREAM_TIMEOUT_MS,
      observeUpstream: (kind) => metrics.upstreamObserver(kind),
      budgets,
    }),
    budgets,
    textEmbeddings,
    embeddingModel,
    indexStore,
    scheduler,
    metrics,
    webhookQueue,
    async close() {
      await scheduler.close();
      await vectors.close();
      await webhookQueue.close();
      redis.disconnect();
      await indexStore.close();
      await opensearch.close();
      // Ships what is left (graceful shutdown drains the spool), then removes its file.
      await auditSpool?.close();
      await auditEntriesWriter.close();
      await auditOutcomesWriter.close();
      await auditRecoveryWriter.close();
      await db.destroy();
    },
  };
}

/**
 * AUDIT_SPOOL_DIR, a directory per database inside it: an orphaned file is shipped by a process of the database
 * whose offset row it has, so processes of other databases (test databases side by side) leave it alone.
 */
function spoolDirectory(env: PlatformEnv): string {
  const database = decodeURIComponent(new URL(env.DATABASE_URL).pathname.slice(1)) || 'postgres';
  return join(resolve(env.AUDIT_SPOOL_DIR), database.replace(/[^A-Za-z0-9_-]/g, '_'));
}
