import { type Connector, isConnectorError, UpstreamRateLimitError } from '@conduit/connectors';
import type { ConnectorRow } from '@conduit/db';
import { type RefreshRecordOutcome, refreshRecord, WebhookEventJob } from '@conduit/platform';
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import type { SyncDeps } from '../deps.ts';

/** Failures that another attempt cannot fix (the stored credentials or the named record are refused). */
const PERMANENT = new Set(['upstream_auth_failed', 'invalid_params', 'invalid_request', 'unsupported_action']);

const CACHED_CONNECTORS = 500;
/**
 * Live connectors by connector id and row version: a stream of events for one connector reuses one connector
 * (decrypted credentials, HTTP client and its keep-alive connections) instead of building one per event. A
 * changed row (new credentials, rotated tokens) has a new `updated_at`, hence a new entry.
 */
const connectors = new Map<string, { version: number; connector: Connector }>();

function cachedConnector(deps: SyncDeps, row: ConnectorRow): Connector {
  const version = row.updated_at.getTime();
  const hit = connectors.get(row.id);
  if (hit && hit.version === version) return hit.connector;
  const connector = deps.hosted.forRow(row);
  connectors.delete(row.id);
  connectors.set(row.id, { version, connector });
  if (connectors.size > CACHED_CONNECTORS) connectors.delete(connectors.keys().next().value!);
  return connector;
}

/**
 * One accepted webhook event (DESIGN §7): a signal, never a source. Each record it names is re-read from the
 * upstream with the stored credentials and upserted, or removed when the upstream no longer has it. Writes are
 * not refreshed one by one: the index's own refresh (1 s) makes them searchable, which keeps throughput up under
 * a stream of events.
 */
export async function processWebhookEvent(
  job: Job,
  token: string | undefined,
  deps: SyncDeps,
): Promise<{ outcomes: RefreshRecordOutcome[] } | { skipped: string }> {
  const event = WebhookEventJob.parse(job.data);
  const row = await deps.connectors.findForSync(event.connectorId);
  if (!row) return { skipped: 'connector deleted' };
  const log = deps.logger.child({ connector_id: row.id, event_id: event.eventId, type: event.type });
  const outcomes: RefreshRecordOutcome[] = [];
  for (const record of event.records) {
    try {
      const refreshDeps = { ...deps, hosted: { forRow: (r: ConnectorRow) => cachedConnector(deps, r) } };
      outcomes.push(await refreshRecord(refreshDeps, row, { ...record, refresh: false }));
    } catch (error) {
      if (error instanceof UpstreamRateLimitError) {
        log.warn('upstream rate limit: webhook event delayed', { retry_after_s: error.retryAfterSeconds });
        await job.moveToDelayed(Date.now() + error.retryAfterSeconds * 1000, token);
        throw new DelayedError();
      }
      if (isConnectorError(error) && PERMANENT.has(error.code)) {
        log.error('webhook event cannot be processed', { entity: record.entity, error: error.message });
        throw new UnrecoverableError(error.message);
      }
      throw error;
    }
  }
  log.info('webhook event processed', {
    outcomes: outcomes.map((o) => o.status).join(','),
    since_received_ms: Date.now() - event.receivedAt,
  });
  return { outcomes };
}
