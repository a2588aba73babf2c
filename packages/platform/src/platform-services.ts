import { basename, resolve } from 'node:path';
import { ChangeSignals } from '@conduit/answer-cache';
import { CredentialsCipher, type PlatformEnv, quotaDefaultsOf } from '@conduit/config';
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
  UsageRepository,
  WebhookEndpointsRepository,
} from '@conduit/db';
import { HostedConnectors, KindRegistry, UpstreamBudgets, type UpstreamOverrides } from '@conduit/hosted-connectors';
import { type Logger, PlatformMetrics, type UsageReading } from '@conduit/observability';
import { connectRedis, type RedisClient, SyncScheduler, syncQueueName, WebhookQueue } from '@conduit/queues';
import { CopySearch, CopyWriter, IndexLifecycle, opensearchNodes } from '@conduit/search-store';
import { AuditLog } from '@conduit/trusted-calls';
import { API_METRICS, dayOf, Quotas, UsageMeter, type UsageMetric } from '@conduit/usage';
import { Client } from '@opensearch-project/opensearch';
import type { Kysely } from 'kysely';
import { CopyVectors } from './copy-vectors.ts';
import { postgresSpan, traceRedisCommands } from './traced-services.ts';

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
  /** The copy's indices (aliases, mapping versions, refreshes), its writes, and searches over it. */
  readonly indexes: IndexLifecycle;
  readonly copy: CopyWriter;
  readonly copySearch: CopySearch;
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
  /** Usage per organization and connector, counted in memory and flushed to Postgres every few seconds. */
  readonly usage: UsageMeter;
  readonly usageRows: UsageRepository;
  /** Each organization's quotas (QUOTA_DEFAULTS and the operator's), docs/operations.md. */
  readonly quotas: Quotas;
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
  | 'indexes'
  | 'copy'
  | 'scheduler'
  | 'redis'
  | 'metrics'
  | 'usage'
  | 'quotas'
>;

export async function connectPlatformServices(
  env: PlatformEnv,
  overrides: UpstreamOverrides,
  logger: Logger,
  service: 'api' | 'worker',
): Promise<PlatformServices> {
  await ensureDatabaseExists(env.DATABASE_URL);
  const traced = env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined;
  const db = createDatabase(
    env.DATABASE_URL,
    10,
    (error) => logger.warn('postgres connection ended', { error: error.message }),
    {},
    traced ? postgresSpan : undefined,
  );
  await migrateToLatest(db);
  const redis = connectRedis(env, { maxRetriesPerRequest: null });
  if (traced) traceRedisCommands(redis);
  // ioredis reconnects by itself; without a listener its connection errors would be unhandled events.
  redis.on('error', (error: Error) => logger.warn('redis connection error', { error: error.message }));
  const nodes = opensearchNodes(env.OPENSEARCH_URL);
  // With several nodes the client spreads requests over them and retries one whose node is unreachable elsewhere.
  const opensearch = new Client({ nodes, maxRetries: Math.max(3, 2 * nodes.length) });
  const connectors = new ConnectorsRepository(db);
  const connectorDefinitions = new ConnectorDefinitionsRepository(db);
  const cipher = new CredentialsCipher(env.ENCRYPTION_KEY, env.ENCRYPTION_KEY_PREVIOUS.split(','));
  // Every append is announced to the API instances' answer caches (docs/architecture.md, "The answer cache"), whichever
  // process wrote: a sync, a webhook's re-read, an execute write reflected in the copy.
  const signals = new ChangeSignals(redis, env.NAMESPACE);
  const changeFeed = new ChangeFeedRepository(db, {
    onAppended: (connectorId, entity, lastSeq) => signals.announce(connectorId, entity, lastSeq),
  });
  const textEmbeddings = new TextEmbeddingsRepository(db);
  const embeddingModel = { dir: resolve(env.EMBEDDING_MODEL_DIR), name: basename(resolve(env.EMBEDDING_MODEL_DIR)) };
  const vectors = new CopyVectors(textEmbeddings, redis, env.NAMESPACE, embeddingModel.name);
  // With several nodes, one replica of each index: a node lost leaves every shard readable and writable.
  const indexes = new IndexLifecycle(opensearch, env.NAMESPACE, { replicas: nodes.length > 1 ? 1 : 0, vectors });
  const copy = new CopyWriter(opensearch, indexes, { vectors });
  const copySearch = new CopySearch(env.OPENSEARCH_URL, { requests: env.OPENSEARCH_SEARCH_REQUESTS });
  const scheduler = new SyncScheduler(redis, syncQueueName(env.NAMESPACE));
  const syncStates = new SyncStatesRepository(db);
  const budgets: UpstreamBudgets = new UpstreamBudgets(redis, env.NAMESPACE, {
    onWait: (lane, waitMs) => metrics.budgetWait.observe({ lane }, waitMs / 1000),
  });
  const usageRows = new UsageRepository(db);
  const usage = new UsageMeter(usageRows, {
    onError: (error) => logger.warn('usage counters not flushed; kept for the next flush', { error: String(error) }),
  }).start();
  const quotas = new Quotas(usageRows, quotaDefaultsOf(env.QUOTA_DEFAULTS));
  const metrics = new PlatformMetrics(service, {
    budgets: () => budgets.recentViews(),
    queue: scheduler.queue,
    entityLag: () => syncStates.lagByEntity(),
    logger,
    // The API's scrape only: every process would report the same rows.
    ...(service === 'api' ? { usage: () => readUsage(usageRows, usage, quotas) } : {}),
  });
  const webhookQueue = new WebhookQueue(redis, env.NAMESPACE);
  // The trail's writes on connections of their own (opened on first use), each commit flushed to disk whatever the
  // server's default: an answered call's entry survives a crash of the database (docs/trusted-calls.md).
  const auditWriter = new AuditWriter(env.DATABASE_URL, { synchronous_commit: 'on' });
  const auditEntries = new AuditEntriesRepository(db);
  return {
    audit: new AuditLog(auditWriter),
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
      countUpstream: (row) => usage.add(row.organization_id, row.id, 'upstream_requests'),
      budgets,
    }),
    budgets,
    usage,
    usageRows,
    quotas,
    indexes,
    copy,
    copySearch,
    textEmbeddings,
    embeddingModel,
    scheduler,
    metrics,
    webhookQueue,
    async close() {
      await usage
        .close()
        .catch((error: unknown) => logger.warn('usage counters lost at close', { error: String(error) }));
      await scheduler.close();
      await vectors.close();
      await webhookQueue.close();
      redis.disconnect();
      await copySearch.close();
      await opensearch.close();
      await auditWriter.close();
      await db.destroy();
    },
  };
}

/** Today's usage and the quotas of the organizations active today or with quotas of their own (the gauges). */
async function readUsage(rows: UsageRepository, meter: UsageMeter, quotas: Quotas): Promise<UsageReading> {
  await meter.flush();
  const day = new Date(dayOf(Date.now()));
  const organizations = await rows.organizationsActiveSince(day);
  const totals = await rows.totalsSince(day, organizations);
  const today = [...totals].flatMap(([organization, metrics]) =>
    [...metrics].map(([metric, value]) => ({ organization, metric, value })),
  );
  const states = await Promise.all(
    organizations.map(async (organization) =>
      Object.entries(await quotas.stateOf(organization, requestsOf(totals.get(organization)))).map(
        ([quota, state]) => ({
          organization,
          quota,
          ...state,
        }),
      ),
    ),
  );
  return { today, quotas: states.flat() };
}

function requestsOf(metrics: ReadonlyMap<string, number> | undefined): number {
  let requests = 0;
  for (const [metric, value] of metrics ?? []) if (API_METRICS.has(metric as UsageMetric)) requests += value;
  return requests;
}
