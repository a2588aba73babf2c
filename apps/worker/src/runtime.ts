import {
  connectPlatformServices,
  createLogger,
  type Logger,
  type PlatformEnv,
  type UpstreamOverrides,
} from '@conduit/platform';
import { type SyncDeps, startSyncWorker } from '@conduit/sync';
import type { Worker } from 'bullmq';

export interface WorkerRuntime {
  readonly deps: SyncDeps;
  readonly worker: Worker;
  /** Graceful: the run in flight checkpoints its page and is re-queued; then connections close. */
  close(): Promise<void>;
}

/** Connects the platform services from the configuration and starts the sync engine's worker on them. */
export async function createWorkerRuntime(
  env: PlatformEnv,
  overrides: UpstreamOverrides,
  options: { logger?: Logger } = {},
): Promise<WorkerRuntime> {
  const logger = options.logger ?? createLogger({ level: env.LOG_LEVEL, base: { service: 'worker' } });
  const services = await connectPlatformServices(env, overrides, logger);
  const deps: SyncDeps = {
    env,
    logger,
    connectors: services.connectors,
    syncStates: services.syncStates,
    hosted: services.hosted,
    indexStore: services.indexStore,
    scheduler: services.scheduler,
    redis: services.redis,
  };
  const sync = startSyncWorker(deps);
  return {
    deps,
    worker: sync.worker,
    async close() {
      await sync.close();
      await services.close();
    },
  };
}
