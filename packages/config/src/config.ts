import { z } from 'zod';
import { localDatabaseUrl } from './local-database.ts';
import { QuotaDefaults } from './quota-defaults.ts';

const url = z.string().url();
/** A duration: a number and a unit (`500ms`, `30s`, `5m`, `24h`, `365d`); read with intervalMs. */
const duration = z.string().regex(/^\d+(ms|s|m|h|d)$/, 'a number and a unit: ms, s, m, h or d');

// Public, so anyone can sign with them: accepted only in the local profile (see productionKeyProblems).
const LOCAL_ENCRYPTION_KEY = 'local-development-encryption-key-change-me';
const LOCAL_TOKEN_SIGNING_KEY = 'local-development-token-signing-key-change-me';
/** Shortest secret accepted outside the local profile: 256 bits, the HMAC-SHA256 and AES-256 key size. */
const PRODUCTION_KEY_BYTES = 32;

/**
 * The configuration contract (docs/operations.md). Every variable has a working local default; a variable set in the
 * environment always wins. Parsed once in each app's main.ts and passed down.
 */
export const PlatformEnv = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /** `local` (simulators, development keys allowed) or `production` (keys must be set; so must NODE_ENV=production). */
  PROFILE: z.enum(['local', 'production']).default('local'),
  /** Default: this machine's Postgres, through its Unix socket when it has one (see localDatabaseUrl). */
  DATABASE_URL: url.default(localDatabaseUrl('conduit')),
  REDIS_URL: url.default('redis://127.0.0.1:6379/0'),
  /** Comma-separated host:port seeds of a Redis Cluster; when set it is used instead of REDIS_URL's host. */
  REDIS_CLUSTER_NODES: z.string().default(''),
  /** One OpenSearch node, or several comma-separated nodes of one cluster (requests go to any, and fail over). */
  OPENSEARCH_URL: z
    .string()
    .default('http://127.0.0.1:9200')
    .refine((value) => value.split(',').every((node) => url.safeParse(node.trim()).success), {
      message: 'must be one URL or several comma-separated URLs',
    }),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Prefix of every index and queue name, so tests and deployments sharing services stay apart. */
  NAMESPACE: z
    .string()
    .regex(/^[a-z0-9_]+$/)
    .default('conduit'),
  ENCRYPTION_KEY: z.string().min(16).default(LOCAL_ENCRYPTION_KEY),
  /** Former keys, still accepted for decryption during a key rotation (comma-separated). */
  ENCRYPTION_KEY_PREVIOUS: z.string().default(''),
  /** Root secret of the signing keys (HKDF per purpose: bearer tokens, OAuth states, search cursors). */
  TOKEN_SIGNING_KEY: z.string().min(16).default(LOCAL_TOKEN_SIGNING_KEY),
  BOOTSTRAP_ORGANIZATION: z.string().min(1).optional(),
  BOOTSTRAP_CLIENT_ID: z.string().min(1).optional(),
  BOOTSTRAP_CLIENT_SECRET: z.string().min(8).optional(),
  SYNC_INTERVAL: z
    .string()
    .regex(/^\d+(ms|s|m|h)$/)
    .default('1h'),
  /**
   * At least this often, entities whose incremental cursor misses edits or deletions get a full pass (re-read from
   * start_date, then removal of what disappeared), docs/architecture.md.
   */
  FULL_SYNC_INTERVAL: z
    .string()
    .regex(/^\d+(ms|s|m|h)$/)
    .default('24h'),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** Entity runs of one connector that may run at once, so one tenant cannot starve others. */
  CONNECTOR_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** Entity runs of one organization at once across all workers; default WORKER_CONCURRENCY - 1 (at least 1). */
  ORGANIZATION_SYNC_CONCURRENCY: z.coerce.number().int().min(1).max(1024).optional(),
  /** Requests per API client per minute (shared by every API instance through Redis). */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(1200),
  /** Upstream call timeout of live actions, in milliseconds. */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  /** BullMQ lock of an active job: a worker that died is noticed after about this long. */
  WORKER_LOCK_MS: z.coerce.number().int().min(1000).default(30_000),
  /** How often the worker re-creates lost schedules and re-queues interrupted runs (e.g. after a Redis restart). */
  RECONCILE_INTERVAL: z
    .string()
    .regex(/^\d+(ms|s|m|h)$/)
    .default('1m'),
  /** The worker's own /metrics port (0: any free port). */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** Address the worker's /metrics binds: loopback unless a scraper on another host needs it (e.g. `0.0.0.0`). */
  WORKER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** When set, GET /metrics (API and worker) requires `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: z.string().min(1).optional(),
  /**
   * Browser origins allowed to call POST /mcp besides the API's own (comma-separated, e.g.
   * `https://agent.example.com`); a request with another Origin header is refused with 403.
   */
  MCP_ALLOWED_ORIGINS: z.string().default(''),
  /** The API's public address (OAuth callback, webhook_url); default http://127.0.0.1:{PORT}. */
  PUBLIC_BASE_URL: url.optional(),
  /**
   * Requests an API process keeps open to OpenSearch for searches, and as many for searches by record keys;
   * searches beyond them wait (10 ms at most) and leave together as one `_msearch` (by keys, one `_mget`).
   */
  OPENSEARCH_SEARCH_REQUESTS: z.coerce.number().int().min(1).max(1024).default(8),
  /**
   * `off`: every search and SQL answer is computed by the engine (no answer kept in the API's memory, no 304 without
   * asking it); `on`: answers are kept and served while no change applied since could alter them (docs/architecture.md).
   */
  ANSWER_CACHE: z.enum(['on', 'off']).default('on'),
  /**
   * Webhook events processed at once by a worker (each re-reads one record from the upstream, then waits for its
   * grouped index write and feed append), half of them at most for one organization. An event is mostly waiting,
   * so an organization's events per second are about its share of these slots over one event's time
   * (docs/changes.md).
   */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(128),
  /**
   * How long removed records' tombstones (and change-feed events) are kept: a write read longer ago than this is
   * no longer guarded against (docs/changes.md).
   */
  CHANGES_RETENTION: z
    .string()
    .regex(/^\d+(ms|s|m|h|d)$/)
    .default('30d'),
  /**
   * Waits before each retry of a webhook delivery to a customer's endpoint (comma-separated); after the last, the
   * delivery is failed. Tests shorten it (`1s,2s,4s`).
   */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\d+(ms|s|m|h)(,\d+(ms|s|m|h))*$/)
    .default('5s,5m,30m,2h,5h,10h,10h'),
  /** A delivery answered 2xx within this long is delivered; otherwise it is retried. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Webhook endpoints one organization may have; creating one more answers 409 `webhook_endpoint_limit`. */
  WEBHOOK_ENDPOINTS_PER_ORGANIZATION: z.coerce.number().int().min(1).max(10_000).default(25),
  /** `1`: endpoints may use http (not only https). The local profile sets it. */
  WEBHOOK_ALLOW_HTTP: z.enum(['0', '1']).default('0'),
  /** `1`: endpoints may resolve to loopback, private or link-local addresses. The local profile sets it. */
  WEBHOOK_ALLOW_PRIVATE: z.enum(['0', '1']).default('0'),
  /**
   * `host:port` pairs (comma-separated) that kinds defined at run time may call although they are internal, over http
   * too (docs/definitions.md, "Egress"). The local profile lists the upstream simulators.
   */
  CONNECTOR_EGRESS_ALLOW: z
    .string()
    .regex(/^([A-Za-z0-9.[\]:-]+:\d{1,5}(,[A-Za-z0-9.[\]:-]+:\d{1,5})*)?$/, 'comma-separated host:port pairs')
    .default(''),
  /** A running keyed call renews its claim this often ×3; a claim not renewed for this long is taken over. */
  IDEMPOTENCY_LEASE: duration.default('30s'),
  /** How long audit entries are kept (at least 1d: the database refuses to remove younger ones). */
  AUDIT_RETENTION: duration.default('365d'),
  /**
   * The sentence-embedding model of search by meaning (docs/search.md): a folder with `model.onnx` and its
   * `tokenizer.json` (a BERT WordPiece encoder of 384 dimensions, as infra/scripts/embedding-model.sh installs);
   * relative to the working directory. Its folder name identifies the model that computed a stored vector.
   */
  EMBEDDING_MODEL_DIR: z.string().min(1).default('.data/models/all-minilm-l6-v2-q'),
  /**
   * How often the worker removes what is past its retention: tombstones and change events (CHANGES_RETENTION),
   * audit entries (AUDIT_RETENTION) and expired idempotency keys.
   */
  RETENTION_INTERVAL: duration.default('1h'),
  /** Every organization's quotas unless an operator set its own (admin CLI `set-quota`); empty: none. */
  QUOTA_DEFAULTS: QuotaDefaults,
  /**
   * OpenTelemetry: where spans are exported (OTLP/HTTP, JSON, `<endpoint>/v1/traces`); unset, no SDK is started
   * (docs/operations.md, "Traces").
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: url.optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
});
export type PlatformEnv = z.infer<typeof PlatformEnv>;

/** Parses the environment or exits with a readable list of what is wrong. */
export function readEnv(source: NodeJS.ProcessEnv = process.env): PlatformEnv {
  const result = PlatformEnv.safeParse(source);
  const problems = result.success
    ? productionKeyProblems(result.data)
    : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  if (result.success && problems.length === 0) return result.data;
  throw new Error(`invalid configuration:\n${problems.map((line) => `  ${line}`).join('\n')}`);
}

/** Outside the local profile: PROFILE=production or NODE_ENV=production (the Dockerfile sets the latter). */
export function isProductionProfile(env: Pick<PlatformEnv, 'PROFILE' | 'NODE_ENV'>): boolean {
  return env.PROFILE === 'production' || env.NODE_ENV === 'production';
}

/**
 * What is wrong with the keys for a production start, one line per variable (empty: nothing). A missing key falls
 * back to a public default, with which anyone could sign a token for any organization or read stored
 * credentials; a short one can be guessed. The local profile keeps its defaults so `./dev start` works offline.
 */
export function productionKeyProblems(env: PlatformEnv): string[] {
  if (!isProductionProfile(env)) return [];
  const keys: [string, string, string][] = [
    ['ENCRYPTION_KEY', env.ENCRYPTION_KEY, LOCAL_ENCRYPTION_KEY],
    ['TOKEN_SIGNING_KEY', env.TOKEN_SIGNING_KEY, LOCAL_TOKEN_SIGNING_KEY],
  ];
  const problems: string[] = [];
  for (const [name, value, localDefault] of keys) {
    if (value === localDefault) {
      problems.push(`${name}: must be set outside the local profile (the local default is public)`);
    } else if (Buffer.byteLength(value, 'utf8') < PRODUCTION_KEY_BYTES) {
      problems.push(`${name}: must be at least ${PRODUCTION_KEY_BYTES} bytes outside the local profile`);
    }
  }
  return problems;
}

/**
 * CONNECTOR_BASE_URL_<KIND> and CONNECTOR_TOKEN_URL_<KIND> overrides, keyed by env suffix (ORB, ZENDESK_TALK), and
 * CONNECTOR_RATE_LIMIT_<KIND>: the requests per second the deployment's plan with the vendor allows (the kind's
 * documented limit otherwise, or a learnt one where none is documented).
 */
export function upstreamOverrides(source: NodeJS.ProcessEnv = process.env): {
  baseUrls: Record<string, string>;
  tokenUrls: Record<string, string>;
  rateLimits: Record<string, number>;
} {
  const baseUrls: Record<string, string> = {};
  const tokenUrls: Record<string, string> = {};
  const rateLimits: Record<string, number> = {};
  for (const [key, value] of Object.entries(source)) {
    if (!value) continue;
    if (key.startsWith('CONNECTOR_BASE_URL_')) baseUrls[key.slice('CONNECTOR_BASE_URL_'.length)] = value;
    if (key.startsWith('CONNECTOR_TOKEN_URL_')) tokenUrls[key.slice('CONNECTOR_TOKEN_URL_'.length)] = value;
    if (key.startsWith('CONNECTOR_RATE_LIMIT_')) {
      const perSecond = Number(value);
      if (!(perSecond > 0)) throw new Error(`invalid configuration:\n  ${key}: a number of requests per second > 0`);
      rateLimits[key.slice('CONNECTOR_RATE_LIMIT_'.length)] = perSecond;
    }
  }
  return { baseUrls, tokenUrls, rateLimits };
}

/** The API's public base URL without a trailing slash. */
export function publicBaseUrl(env: Pick<PlatformEnv, 'PUBLIC_BASE_URL' | 'PORT'>): string {
  return (env.PUBLIC_BASE_URL?.trim() || `http://127.0.0.1:${env.PORT}`).replace(/\/+$/, '');
}

export function intervalMs(interval: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(interval);
  if (!match) throw new Error(`invalid interval ${interval}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}
