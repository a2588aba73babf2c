import type { PlatformEnv } from '@conduit/config';
import type { Logger } from '@conduit/observability';
import type { CoreServices } from '@conduit/platform';

/** What the sync engine needs; the worker app builds it from its configuration. */
export interface SyncDeps extends CoreServices {
  readonly env: PlatformEnv;
  readonly logger: Logger;
}
