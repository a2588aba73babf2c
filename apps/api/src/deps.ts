import type { ClientsRepository, ConnectorsRepository, SyncStatesRepository } from '@conduit/db';
import type { OAuthDeps } from '@conduit/oauth-consent';
import type {
  AccessTokens,
  CredentialsCipher,
  HostedConnectors,
  IndexStore,
  Logger,
  PlatformEnv,
  PlatformMetrics,
  SyncScheduler,
  WebhookQueue,
} from '@conduit/platform';
import type { Redis } from 'ioredis';
import type { ConnectorCache } from './services/connector-cache.ts';
import type { SearchService } from './services/search-service.ts';

/** Everything the API needs, built in main.ts (or a test) and passed to buildApp. */
export interface ApiDeps {
  readonly env: PlatformEnv;
  readonly logger: Logger;
  readonly connectors: ConnectorsRepository;
  /** Connector rows for the search hot path; PATCH and DELETE must invalidate (see ConnectorCache). */
  readonly connectorCache: ConnectorCache;
  readonly syncStates: SyncStatesRepository;
  readonly clients: ClientsRepository;
  readonly cipher: CredentialsCipher;
  readonly tokens: AccessTokens;
  readonly hosted: HostedConnectors;
  readonly indexStore: IndexStore;
  readonly scheduler: SyncScheduler;
  /** Accepted upstream webhooks, deduplicated by event id (DESIGN §7). */
  readonly webhookQueue: WebhookQueue;
  readonly search: SearchService;
  readonly redis: Redis;
  /** Prometheus metrics of this process (GET /metrics). */
  readonly metrics: PlatformMetrics;
  /** The OAuth consent flow's settings (providers from OAUTH_* variables, state store, callback URL). */
  readonly oauth?: OAuthDeps;
  /** Readiness probes by name (postgres, redis, opensearch). */
  readonly probes: Readonly<Record<string, () => Promise<void>>>;
}

export interface AuthContext {
  readonly clientId: string;
  readonly organizationId: string;
}

export type ApiEnv = { Variables: { requestId: string; auth: AuthContext; logger: Logger } };
