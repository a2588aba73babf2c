import type { PlatformEnv } from '@conduit/config';
import type { Logger } from '@conduit/observability';
import type { PlatformServices } from '@conduit/platform';

/** What the sync engine needs; the worker app builds it from its configuration. */
export interface SyncDeps
  extends Pick<
    PlatformServices,
    | 'connectors'
    | 'syncStates'
    | 'changeFeed'
    | 'webhookEndpoints'
    | 'cipher'
    | 'hosted'
    | 'indexStore'
    | 'scheduler'
    | 'redis'
    | 'metrics'
  > {
  readonly env: PlatformEnv;
  readonly logger: Logger;
}
