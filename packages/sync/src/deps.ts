import type { ConnectorsRepository, SyncStatesRepository } from '@conduit/db';
import type {
  HostedConnectors,
  IndexStore,
  Logger,
  PlatformEnv,
  PlatformMetrics,
  SyncScheduler,
} from '@conduit/platform';
import type { Redis } from 'ioredis';

/** What the sync engine needs; the worker app builds it from its configuration. */
export interface SyncDeps {
  readonly env: PlatformEnv;
  readonly logger: Logger;
  readonly connectors: ConnectorsRepository;
  readonly syncStates: SyncStatesRepository;
  readonly hosted: HostedConnectors;
  readonly indexStore: IndexStore;
  readonly scheduler: SyncScheduler;
  readonly redis: Redis;
  readonly metrics: PlatformMetrics;
}
