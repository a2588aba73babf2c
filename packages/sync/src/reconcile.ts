import { intervalMs } from '@conduit/config';
import type { SyncDeps } from './deps.ts';
import { repeatEvery } from './repeat.ts';

/**
 * Postgres is the source of truth for what should be scheduled and what was interrupted; Redis may lose
 * both (a restart without persistence). Re-creating schedules is idempotent, and an interrupted run is
 * re-queued under its deduplicating job id, so it never runs twice at once.
 */
export async function reconcile(deps: SyncDeps): Promise<{ schedules: number; rescheduled: number; resumed: number }> {
  const connectorIds = await deps.connectors.listAllIds();
  const rescheduled = await deps.scheduler.ensureSchedules(connectorIds, intervalMs(deps.env.SYNC_INTERVAL));
  const interrupted = await deps.syncStates.listInterrupted();
  for (const run of interrupted) await deps.scheduler.syncEntity(run.connector_id, run.entity);
  return { schedules: connectorIds.length, rescheduled, resumed: interrupted.length };
}

/** Runs `reconcile` now and then every RECONCILE_INTERVAL; errors are logged and retried next time. */
export function startReconciler(deps: SyncDeps): () => void {
  return repeatEvery(
    intervalMs(deps.env.RECONCILE_INTERVAL),
    async () => {
      const result = await reconcile(deps);
      if (result.resumed > 0 || result.rescheduled > 0) deps.logger.info('re-created lost schedules and runs', result);
    },
    (error) => deps.logger.warn('reconcile failed', { error }),
  );
}
