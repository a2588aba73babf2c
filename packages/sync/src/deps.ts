import type { CredentialsCipher, PlatformEnv } from '@conduit/config';
import type {
  ChangeFeedRepository,
  ConnectorsRepository,
  SyncStatesRepository,
  WebhookEndpointsRepository,
} from '@conduit/db';
import type { HostedConnectors } from '@conduit/hosted-connectors';
import type { Logger, PlatformMetrics } from '@conduit/observability';
import type { RedisClient, SyncScheduler } from '@conduit/queues';
import type { CopyWriter, IndexLifecycle } from '@conduit/search-store';
import type { Quotas, UsageMeter } from '@conduit/usage';

/** What the sync engine needs; the worker app builds it from its configuration and the platform's services. */
export interface SyncDeps {
  readonly env: PlatformEnv;
  readonly logger: Logger;
  readonly connectors: ConnectorsRepository;
  readonly syncStates: SyncStatesRepository;
  readonly changeFeed: ChangeFeedRepository;
  readonly webhookEndpoints: WebhookEndpointsRepository;
  readonly cipher: CredentialsCipher;
  readonly hosted: HostedConnectors;
  readonly indexes: IndexLifecycle;
  readonly copy: CopyWriter;
  readonly scheduler: SyncScheduler;
  readonly redis: RedisClient;
  readonly metrics: PlatformMetrics;
  /** Usage counted per organization (records synced, deliveries) and the quotas a run checks. */
  readonly usage: UsageMeter;
  readonly quotas: Quotas;
}
