import { intervalMs, type PlatformEnv } from '@conduit/config';
import type { Logger } from '@conduit/observability';
import type { SyncDeps } from './deps.ts';
import { repeatEvery } from './repeat.ts';

/** One kind of expired rows: its name in the log, and the call that removes them and says how many it removed. */
export interface Purge {
  readonly name: string;
  run(now: number): Promise<number>;
}

/**
 * What is older than CHANGES_RETENTION (docs/changes.md): tombstones of removed records in the copy, change-feed
 * events, and finished webhook deliveries with their attempts. A tombstone written again meanwhile is kept.
 */
export function changesPurges(deps: Pick<SyncDeps, 'env' | 'copy' | 'changeFeed' | 'webhookEndpoints'>): Purge[] {
  const before = (now: number) => now - intervalMs(deps.env.CHANGES_RETENTION);
  return [
    { name: 'tombstones', run: (now) => deps.copy.purgeTombstones(before(now)) },
    { name: 'events', run: (now) => deps.changeFeed.purgeBefore(new Date(before(now))) },
    { name: 'deliveries', run: (now) => deps.webhookEndpoints.purgeBefore(new Date(before(now))) },
  ];
}

/**
 * Runs each purge once, in order; how many rows each removed, by name. With `onError`, a purge that fails is reported
 * there and the others still run (one table's trouble does not keep the rest from being cleaned); without, it throws.
 */
export async function runPurges(
  purges: readonly Purge[],
  now = Date.now(),
  onError?: (purge: Purge, error: unknown) => void,
): Promise<Record<string, number>> {
  const removed: Record<string, number> = {};
  for (const purge of purges) {
    try {
      removed[purge.name] = await purge.run(now);
    } catch (error) {
      if (!onError) throw error;
      onError(purge, error);
    }
  }
  return removed;
}

/** Runs the CHANGES_RETENTION purges once (tests move `now` past the retention). */
export function purgeExpired(
  deps: Pick<SyncDeps, 'env' | 'copy' | 'changeFeed' | 'webhookEndpoints'>,
  now = Date.now(),
): Promise<Record<string, number>> {
  return runPurges(changesPurges(deps), now);
}

/**
 * The one retention loop of a worker: runs every purge now and then every RETENTION_INTERVAL. Every worker may run
 * it: the deletes are idempotent. A purge that fails is logged and retried next time; the others run all the same.
 */
export function startRetention(
  deps: { readonly env: Pick<PlatformEnv, 'RETENTION_INTERVAL'>; readonly logger: Logger },
  purges: readonly Purge[],
): () => void {
  return repeatEvery(
    intervalMs(deps.env.RETENTION_INTERVAL),
    async () => {
      const removed = await runPurges(purges, Date.now(), (purge, error) =>
        deps.logger.warn('retention failed', { purge: purge.name, error }),
      );
      if (Object.values(removed).some((n) => n > 0)) deps.logger.info('retention removed old rows', removed);
    },
    (error) => deps.logger.warn('retention failed', { error }),
  );
}
