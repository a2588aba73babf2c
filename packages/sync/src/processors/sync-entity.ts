import { randomUUID } from 'node:crypto';
import { failureReason, isConnectorError, isRetryable, UpstreamRateLimitError } from '@conduit/connectors';
import { type RedisSemaphore, SyncEntityJob } from '@conduit/queues';
import { QuotaExceededError } from '@conduit/usage';
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import type { SyncDeps } from '../deps.ts';
import { runEntitySync, SyncInterrupted, type SyncRunOutcome } from '../sync-run.ts';

const SLOT_RETRY_MS = 2_000;
// A run held at the records quota looks again this often: raising the quota resumes it within seconds, and the
// look is one cached limit and one sum over the organization's entities.
const QUOTA_RECHECK_MS = 5_000;

/**
 * BullMQ side of an entity run: per-connector slots, rate limits that delay the job without burning an
 * attempt, shutdown that re-queues the job right away, and `failed` status for errors. Transient errors are
 * retried with backoff; failures no retry can heal (`isRetryable`, the one retry decision) end the job at once
 * (UnrecoverableError) with the upstream's reason on the entity: an upstream that refuses the request (a 400),
 * credentials the upstream rejects (the connector then says they need replacing; a PATCH of credentials tries
 * again) and a connector deleted under the run. The next scheduled run tries again.
 */
export async function processSyncEntity(
  job: Job,
  token: string | undefined,
  deps: SyncDeps,
  slots: { readonly connector: RedisSemaphore; readonly organization: RedisSemaphore },
  stopRequested: () => boolean,
): Promise<SyncRunOutcome> {
  const { connectorId, entity, mode } = SyncEntityJob.parse(job.data);
  const holder = job.id ?? `${connectorId}:${entity}`;
  const run = { connectorId, entity, owner: randomUUID() };
  if (!(await slots.connector.take(connectorId, holder))) {
    await job.moveToDelayed(Date.now() + SLOT_RETRY_MS, token);
    throw new DelayedError();
  }
  // One organization's runs take at most ORGANIZATION_SYNC_CONCURRENCY worker slots: the others wait their turn
  // rather than every other tenant waiting behind them. A connector already deleted runs (and ends) unslotted.
  const organizationId = (await deps.connectors.findForSync(connectorId))?.organization_id;
  if (organizationId && !(await slots.organization.take(organizationId, holder))) {
    await slots.connector.release(connectorId, holder);
    await job.moveToDelayed(Date.now() + SLOT_RETRY_MS, token);
    throw new DelayedError();
  }
  let kind = 'unknown';
  const count = (outcome: string) => deps.metrics.syncRuns.inc({ kind, entity, outcome });
  // The records quota: checked before reading anything, and after each page written (a run ends at most one page
  // over it). A held run keeps its checkpoint: it resumes where it stopped, nothing written is lost.
  const recordsQuota = async () => {
    const over = organizationId ? await deps.quotas.recordsOver(organizationId) : undefined;
    if (over) throw over;
  };
  try {
    await recordsQuota();
    const outcome = await runEntitySync(connectorId, entity, deps, {
      owner: run.owner,
      stopRequested,
      ...(mode ? { mode } : {}),
      onStart: (info) => {
        kind = info.kind;
      },
      onPage: async (progress) => {
        deps.metrics.recordsIndexed.inc({ kind, entity }, progress.pageIndexed);
        if (organizationId) deps.usage.add(organizationId, connectorId, 'records_synced', progress.pageIndexed);
        await slots.connector.heartbeat(connectorId, holder);
        if (organizationId) await slots.organization.heartbeat(organizationId, holder);
        await recordsQuota();
      },
    });
    count(outcome.status);
    return outcome;
  } catch (error) {
    if (error instanceof SyncInterrupted) {
      count('interrupted');
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    }
    if (error instanceof QuotaExceededError) {
      count('quota_exceeded');
      await deps.syncStates.pauseRun(run);
      await deps.syncStates.ensure(connectorId, [entity]);
      await deps.syncStates.noteError(
        connectorId,
        entity,
        `paused: ${error.message}; the sync resumes where it stopped once the quota allows`,
      );
      deps.logger.warn('records quota reached: sync paused', { connector_id: connectorId, entity, limit: error.limit });
      await job.moveToDelayed(Date.now() + QUOTA_RECHECK_MS, token);
      throw new DelayedError();
    }
    if (error instanceof UpstreamRateLimitError) {
      count('rate_limited');
      await deps.syncStates.pauseRun(run);
      deps.logger.warn('upstream rate limit: sync delayed', {
        connector_id: connectorId,
        entity,
        retry_after_s: error.retryAfterSeconds,
      });
      await job.moveToDelayed(Date.now() + error.retryAfterSeconds * 1000, token);
      throw new DelayedError();
    }
    count('failed');
    const message = error instanceof Error ? error.message : String(error);
    if (!(await deps.connectors.findForSync(connectorId))) {
      deps.logger.info('connector deleted during the run; not retried', { connector_id: connectorId, entity });
      throw new UnrecoverableError('connector deleted');
    }
    const retried = isRetryable(error);
    const rejected = isConnectorError(error) && error.code === 'upstream_auth_failed';
    const reason = rejected
      ? `the upstream rejected the stored credentials: ${failureReason(error)}`
      : failureReason(error);
    await deps.syncStates.failRun(run, reason.slice(0, 1000));
    deps.logger.error('sync run failed', {
      connector_id: connectorId,
      entity,
      error: message,
      attempt: job.attemptsMade + 1,
      retried,
    });
    if (rejected) await deps.connectors.markCredentialsRejected(connectorId, reason);
    if (!retried) throw new UnrecoverableError(reason);
    throw error;
  } finally {
    await slots.connector.release(connectorId, holder);
    if (organizationId) await slots.organization.release(organizationId, holder);
  }
}
