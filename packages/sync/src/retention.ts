import { intervalMs } from '@conduit/platform';
import type { SyncDeps } from './deps.ts';

/**
 * Removes what is older than CHANGES_RETENTION (docs/changes.md): tombstones of removed records in the copy,
 * change-feed events, and finished webhook deliveries with their attempts. Idempotent, so every worker may run it; a tombstone written again meanwhile is kept.
 */
export async function purgeExpired(
  deps: Pick<SyncDeps, 'env' | 'indexStore' | 'changeFeed' | 'webhookEndpoints'>,
  now = Date.now(),
) {
  const before = now - intervalMs(deps.env.CHANGES_RETENTION);
  const tombstones = await deps.indexStore.purgeTombstones(before);
  const events = await deps.changeFeed.purgeBefore(new Date(before));
  const deliveries = await deps.webhookEndpoints.purgeBefore(new Date(before));
  return { tombstones, events, deliveries };
}

/** Runs `purgeExpired` now and then every RETENTION_INTERVAL; errors are logged and retried next time. */
export function startRetention(deps: SyncDeps): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = async () => {
    try {
      const purged = await purgeExpired(deps);
      if (Object.values(purged).some((n) => n > 0)) deps.logger.info('purged what is past CHANGES_RETENTION', purged);
    } catch (error) {
      deps.logger.warn('retention purge failed', { error });
    }
    if (!stopped) timer = setTimeout(tick, intervalMs(deps.env.RETENTION_INTERVAL));
  };
  void tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
