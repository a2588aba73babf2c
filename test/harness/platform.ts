import { randomBytes } from 'node:crypto';
import { type ApiRuntime, buildApp, createApiRuntime } from '@conduit/api';
import { hashClientSecret, readEnv } from '@conduit/config';
import type { UpstreamOverrides } from '@conduit/hosted-connectors';
import { createLogger, type Logger } from '@conduit/observability';
import { createWorkerRuntime, type WorkerRuntime } from '@conduit/worker';
import type { Hono } from 'hono';
import { listen } from '../simulators/kit/server.ts';
import { dropDatabase, withDatabaseName } from './databases.ts';
import { engineClient } from './engine-client.ts';
import { createMigratedDatabase } from './migrated-template.ts';
import { testServices } from './services.ts';

/** A token is taken again after this long (the API's tokens live an hour). */
const TOKEN_RENEW_AFTER_MS = 50 * 60 * 1000;

export interface TestPlatform {
  readonly url: string;
  /** The Hono app, for in-process requests (fuzzing). */
  readonly app: ReturnType<typeof buildApp>;
  readonly namespace: string;
  readonly api: ApiRuntime;
  readonly worker: WorkerRuntime | null;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly organizationId: string;
  /** Every log line both apps wrote, for secret scans. */
  readonly logLines: string[];
  token(): Promise<string>;
  /** A second organization with a client of its own: its id, and a token of that client. */
  anotherOrganization(): Promise<{ readonly organizationId: string; readonly token: string }>;
  /** fetch against the API with a bearer token. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /**
   * Another API instance on the same database, Redis and namespace, as a scaled-out deployment runs them, with
   * `env` changed (e.g. OPENSEARCH_SEARCH_REQUESTS); it logs nothing, and the caller closes it.
   */
  secondApi(env?: Partial<ApiRuntime['deps']['env']>): Promise<ApiRuntime>;
  close(): Promise<void>;
}

/**
 * Worker settings that run every entity of every connector of a test at once. With the defaults (two runs per
 * connector, WORKER_CONCURRENCY - 1 per organization) an entity run over the slots waits 2 s before it tries again,
 * so a kind with ten entities spends most of its first sync waiting for a slot. For files that test what a sync
 * copies (conformance, change capture, the SDK), not how runs share the worker (sync-fair-share does that).
 */
export const ALL_ENTITIES_AT_ONCE: Readonly<Record<string, string>> = {
  WORKER_CONCURRENCY: '32',
  CONNECTOR_CONCURRENCY: '32',
  ORGANIZATION_SYNC_CONCURRENCY: '32',
};

export interface TestPlatformOptions {
  readonly overrides?: UpstreamOverrides;
  readonly worker?: boolean;
  readonly env?: Record<string, string>;
}

/**
 * The whole platform in-process, against the real services, isolated by a random namespace (indices, queue)
 * and a random organization and client. The API listens on a real port; tests talk HTTP to it.
 */
export async function startTestPlatform(options: TestPlatformOptions = {}): Promise<TestPlatform> {
  const services = await testServices();
  const suffix = randomBytes(4).toString('hex');
  const namespace = `t_${suffix}`;
  const clientId = `client-${suffix}`;
  const clientSecret = `secret-${randomBytes(12).toString('hex')}`;
  const organizationId = `org-${suffix}`;
  const databaseUrl = withDatabaseName(services.databaseUrl, `conduit_test_${suffix}`);
  await createMigratedDatabase(databaseUrl);
  const env = readEnv({
    NODE_ENV: 'test',
    // A database per platform: the worker reconciles every connector it finds, so platforms must not share one.
    DATABASE_URL: databaseUrl,
    REDIS_URL: services.redisUrl,
    OPENSEARCH_URL: services.opensearchUrl,
    NAMESPACE: namespace,
    BOOTSTRAP_ORGANIZATION: organizationId,
    BOOTSTRAP_CLIENT_ID: clientId,
    BOOTSTRAP_CLIENT_SECRET: clientSecret,
    LOG_LEVEL: 'debug',
    // Tests run side by side: the worker's /metrics listens on any free port.
    WORKER_METRICS_PORT: '0',
    ...options.env,
  });
  const logLines: string[] = [];
  const logger: Logger = createLogger({ level: 'debug', write: (line) => logLines.push(line) });
  const overrides = options.overrides ?? { baseUrls: {}, tokenUrls: {} };
  const api = await createApiRuntime(env, overrides, {
    logger: logger.child({ service: 'api' }),
    envSource: { ...process.env, ...options.env },
  });
  const worker =
    options.worker === false
      ? null
      : await createWorkerRuntime(env, overrides, { logger: logger.child({ service: 'worker' }) });
  const app = buildApp(api.deps);
  // listen() only hands app.fetch to the server; its Hono type has no room for the API's own Env.
  const server = await listen(app as unknown as Hono);

  const tokenOf = async (client: string, secret: string) => {
    const response = await fetch(`${server.url}/api/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: client, client_secret: secret }),
    });
    if (!response.ok) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { access_token: string }).access_token;
  };
  // Taken again before it expires (an hour, the API's token lifetime): the long differential runs outlive one.
  let cachedToken: { readonly value: string; readonly until: number } | undefined;
  const token = async () => {
    if (!cachedToken || Date.now() >= cachedToken.until) {
      cachedToken = { value: await tokenOf(clientId, clientSecret), until: Date.now() + TOKEN_RENEW_AFTER_MS };
    }
    return cachedToken.value;
  };

  return {
    url: server.url,
    app,
    namespace,
    api,
    worker,
    clientId,
    clientSecret,
    organizationId,
    logLines,
    token,
    async anotherOrganization() {
      const other = `org-b-${randomBytes(4).toString('hex')}`;
      const otherClient = `client-${other}`;
      const secret = `secret-${randomBytes(12).toString('hex')}`;
      const { clients } = api.deps;
      await clients.upsertOrganization(other, other);
      await clients.upsertClient({
        client_id: otherClient,
        secret_hash: await hashClientSecret(secret),
        name: 'b',
        allowed_redirect_urls: [],
      });
      await clients.grant(otherClient, other);
      return { organizationId: other, token: await tokenOf(otherClient, secret) };
    },
    async call(method, path, body, headers = {}) {
      return fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${await token()}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    },
    secondApi(changed = {}) {
      return createApiRuntime({ ...api.deps.env, ...changed }, overrides, {
        logger: createLogger({ level: 'error', write: () => undefined }),
      });
    },
    async close() {
      await server.close();
      await worker?.close();
      await api.deps.scheduler.queue.obliterate({ force: true }).catch(() => undefined);
      await api.deps.webhookQueue.queue.obliterate({ force: true }).catch(() => undefined);
      const engine = engineClient(api.deps.env);
      await engine.indices.delete({ index: `${namespace}_*` }).catch(() => undefined);
      await engine.close();
      await api.close();
      await dropDatabase(databaseUrl);
    },
  };
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 60_000,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Closes each in turn, skipping what never started (a failed beforeAll leaves it undefined). */
export async function closeInOrder(...handles: ({ close(): Promise<void> } | undefined)[]): Promise<void> {
  for (const handle of handles) await handle?.close();
}
