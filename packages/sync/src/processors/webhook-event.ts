import { type Connector, failureReason, isRetryable, UpstreamRateLimitError } from '@conduit/connectors';
import type { ConnectorRow } from '@conduit/db';
import {
  type RecordWriter,
  type RefreshRecordDeps,
  type RefreshRecordOutcome,
  refreshRecord,
} from '@conduit/hosted-connectors';
import { WebhookEventJob } from '@conduit/queues';
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import type { SyncDeps } from '../deps.ts';

const CACHED_CONNECTORS = 500;
/**
 * Live connectors by connector id and row version: a stream of events for one connector reuses one connector
 * (decrypted credentials, HTTP client and its keep-alive connections) instead of building one per event. A
 * changed row (new credentials, rotated tokens) has a new `updated_at`, hence a new entry.
 */
const connectors = new Map<string, { version: number; connector: Promise<Connector> }>();

function cachedConnector(deps: SyncDeps, row: ConnectorRow): Promise<Connector> {
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
 * Connector rows being read, by id: concurrent jobs for one connector share one query (never a stale row: only a
 * query still in flight is shared), so a burst of events costs one Postgres round trip, not one per event.
 */
const rowsInFlight = new Map<string, Promise<ConnectorRow | undefined>>();

function findRow(deps: SyncDeps, id: string): Promise<ConnectorRow | undefined> {
  let pending = rowsInFlight.get(id);
  if (!pending) {
    pending = deps.connectors.findForSync(id).finally(() => rowsInFlight.delete(id));
    rowsInFlight.set(id, pending);
  }
  return pending;
}

/**
 * One accepted webhook event (docs/api.md): a signal, never a source. Each record it names is re-read from the
 * upstream with the stored credentials and upserted through `writeRecord` (the worker's grouped writes: events
 * arriving together share one bulk request), or removed when the upstream no longer has it. Writes are not
 * refreshed one by one: the index's own refresh (1 s) makes them searchable.
 */
export async function processWebhookEvent(
  job: Job,
  token: string | undefined,
  deps: SyncDeps,
  writeRecord?: RecordWriter,
  shares?: OrganizationShares,
): Promise<{ outcomes: RefreshRecordOutcome[] } | { skipped: string }> {
  const event = WebhookEventJob.parse(job.data);
  const started = performance.now();
  const row = await findRow(deps, event.connectorId);
  if (!row) return { skipped: 'connector deleted' };
  // Over its organization's share of this worker's slots: back to the queue for a moment, the others go first.
  const done = shares?.enter(row.organization_id);
  if (shares && !done) {
    await job.moveToDelayed(Date.now() + SHARE_RETRY_MS, token);
    throw new DelayedError();
  }
  try {
    return await processEvent(job, token, deps, row, event, started, writeRecord);
  } finally {
    done?.();
  }
}

/** An event whose organization is over its share waits this long before it is tried again. */
const SHARE_RETRY_MS = 100;

/**
 * Events of one organization a worker processes at once (per process, no Redis round trip on this latency-bound
 * path): a tenant whose upstream answers slowly, or who sends a flood, leaves the other slots to the others.
 */
export class OrganizationShares {
  readonly #limit: number;
  readonly #running = new Map<string, number>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Takes a share (give it back with the returned function), or undefined when the organization is at its limit. */
  enter(organizationId: string): (() => void) | undefined {
    const running = this.#running.get(organizationId) ?? 0;
    if (running >= this.#limit) return undefined;
    this.#running.set(organizationId, running + 1);
    return () => {
      const left = (this.#running.get(organizationId) ?? 1) - 1;
      if (left > 0) this.#running.set(organizationId, left);
      else this.#running.delete(organizationId);
    };
  }
}

async function processEvent(
  job: Job,
  token: string | undefined,
  deps: SyncDeps,
  row: ConnectorRow,
  event: WebhookEventJob,
  started: number,
  writeRecord: RecordWriter | undefined,
): Promise<{ outcomes: RefreshRecordOutcome[] }> {
  const log = deps.logger.child({ connector_id: row.id, event_id: event.eventId, type: event.type });
  // Timing counters for the "processed" line (what bench:freshness reads): where an event's time goes.
  const timing = { read_ms: 0, write_ms: 0 };
  const timed =
    <A extends unknown[], R>(counter: keyof typeof timing, run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const at = performance.now();
      try {
        return await run(...args);
      } finally {
        timing[counter] += performance.now() - at;
      }
    };
  const refreshDeps: RefreshRecordDeps = {
    ...deps,
    hosted: {
      kinds: deps.hosted.kinds,
      forRow: async (r) => {
        const connector = await cachedConnector(deps, r);
        return Object.assign(Object.create(connector) as Connector, {
          execute: timed('read_ms', connector.execute.bind(connector)),
        });
      },
    },
    ...(writeRecord ? { writeRecord: timed('write_ms', writeRecord) } : {}),
  };
  const outcomes: RefreshRecordOutcome[] = [];
  for (const record of event.records) {
    try {
      outcomes.push(await refreshRecord(refreshDeps, row, { ...record, refresh: false }));
    } catch (error) {
      if (error instanceof UpstreamRateLimitError) {
        log.warn('upstream rate limit: webhook event delayed', { retry_after_s: error.retryAfterSeconds });
        await job.moveToDelayed(Date.now() + error.retryAfterSeconds * 1000, token);
        throw new DelayedError();
      }
      // Another attempt cannot fix refused credentials, a refused request or a record the event misnames.
      if (!isRetryable(error)) {
        const reason = failureReason(error);
        log.error('webhook event cannot be processed', { entity: record.entity, error: reason });
        throw new UnrecoverableError(reason);
      }
      throw error;
    }
  }
  log.info('webhook event processed', {
    outcomes: outcomes.map((o) => o.status).join(','),
    since_received_ms: Date.now() - event.receivedAt,
    queued_ms: (job.processedOn ?? Date.now()) - job.timestamp,
    read_ms: Math.round(timing.read_ms),
    write_ms: Math.round(timing.write_ms),
    process_ms: Math.round(performance.now() - started),
  });
  return { outcomes };
}
