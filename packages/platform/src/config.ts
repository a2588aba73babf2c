import { z } from 'zod';

const url = z.string().url();
/** A duration: a number and a unit (`500ms`, `30s`, `5m`, `24h`, `365d`); read with intervalMs. */
const duration = z.string().regex(/^\d+(ms|s|m|h|d)$/, 'a number and a unit: ms, s, m, h or d');

/**
 * The configuration contract (DESIGN §2). Every variable has a working local default; a variable set in the
 * environment always wins. Parsed once in each app's main.ts and passed down.
 */
export const PlatformEnv = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  DATABASE_URL: url.default('postgres://postgres@127.0.0.1:5432/conduit'),
  REDIS_URL: url.default('redis://127.0.0.1:6379/0'),
  OPENSEARCH_URL: url.default('http://127.0.0.1:9200'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Prefix of every index and queue name, so tests and deployments sharing services stay apart. */
  NAMESPACE: z
    .string()
    .regex(/^[a-z0-9_]+$/)
    .default('conduit'),
  ENCRYPTION_KEY: z.string().min(16).default('local-development-encryption-key-change-me'),
  /** Former keys, still accepted for decryption during a key rotation (comma-separated). */
  ENCRYPTION_KEY_PREVIOUS: z.string().default(''),
  /** Root secret of the signing keys (HKDF per purpose: bearer tokens, OAuth states, search cursors). */
  TOKEN_SIGNING_KEY: z.string().min(16).default('local-development-token-signing-key-change-me'),
  /** Optional secrets of their own per purpose, to rotate one kind of signed value without the others. */
  ACCESS_TOKEN_SIGNING_KEY: z.string().min(16).optional(),
  OAUTH_STATE_SIGNING_KEY: z.string().min(16).optional(),
  SEARCH_CURSOR_SIGNING_KEY: z.string().min(16).optional(),
  TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
  BOOTSTRAP_ORGANIZATION: z.string().min(1).optional(),
  BOOTSTRAP_CLIENT_ID: z.string().min(1).optional(),
  BOOTSTRAP_CLIENT_SECRET: z.string().min(8).optional(),
  SYNC_INTERVAL: z
    .string()
    .regex(/^\d+(ms|s|m|h)$/)
    .default('1h'),
  /**
   * At least this often, entities whose incremental cursor misses edits or deletions get a full pass (re-read from
   * start_date, then removal of what disappeared), DESIGN §5.
   */
  FULL_SYNC_INTERVAL: z
    .string()
    .regex(/^\d+(ms|s|m|h)$/)
    .default('24h'),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** Entity runs of one connector that may run at once, so one tenant cannot starve others. */
  CONNECTOR_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
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
  /** When set, GET /metrics (API and worker) requires `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: z.string().min(1).optional(),
  /** The API's public address (OAuth callback, webhook_url); default http://127.0.0.1:{PORT}. */
  PUBLIC_BASE_URL: url.optional(),
  /**
   * Requests an API process keeps open to OpenSearch for searches, and as many for searches by record keys;
   * searches beyond them wait (10 ms at most) and leave together as one `_msearch` (by keys, one `_mget`).
   */
  OPENSEARCH_SEARCH_REQUESTS: z.coerce.number().int().min(1).max(1024).default(8),
  /** Webhook events processed at once by a worker (each re-reads one record from the upstream). */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /** How long an Idempotency-Key of an execute write is remembered (its answer replayed), docs/trusted-calls.md. */
  IDEMPOTENCY_TTL: duration.default('24h'),
  /** A running keyed call renews its claim this often ×3; a claim not renewed for this long is taken over. */
  IDEMPOTENCY_LEASE: duration.default('30s'),
  /** How long audit entries are kept (at least 1d: the database refuses to remove younger ones). */
  AUDIT_RETENTION: duration.default('365d'),
  /**
   * `sync`: an audit entry is flushed to disk (fsync) before its call is answered. `async` (synchronous_commit off
   * for the trail's inserts): committed before the answer, so an API crash loses nothing, but a Postgres crash may
   * lose the last ~0.6 s of entries; it saves a disk flush per call (docs/trusted-calls.md).
   */
  AUDIT_COMMIT: z.enum(['sync', 'async']).default('sync'),
  /** `off` only to measure what the audit trail costs (bench:audit); every call is audited otherwise. */
  AUDIT_TRAIL: z.enum(['on', 'off']).default('on'),
  /** How often the worker removes audit entries past AUDIT_RETENTION and expired idempotency keys. */
  RETENTION_INTERVAL: duration.default('1h'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
});
export type PlatformEnv = z.infer<typeof PlatformEnv>;

/** Parses the environment or exits with a readable list of what is wrong. */
export function readEnv(source: NodeJS.ProcessEnv = process.env): PlatformEnv {
  const result = PlatformEnv.safeParse(source);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  throw new Error(`invalid configuration:\n${lines.join('\n')}`);
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
