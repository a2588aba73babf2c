import { type EntityCatalog, entityOf, isConnectorError } from '@conduit/connectors';
import type { ConnectorRow, SyncStatesRepository } from '@conduit/db';
import { type ChangeSource, type IndexRefresh, type IndexStore, recordKeyOf } from '@conduit/search-store';
import type { HostedConnectors } from './hosted-connectors.ts';
import { indexKindOf } from './kind-registry.ts';

export interface RefreshRecordDeps {
  readonly hosted: Pick<HostedConnectors, 'forRow' | 'kinds'>;
  readonly indexStore: IndexStore;
  readonly syncStates: Pick<SyncStatesRepository, 'get'>;
  /**
   * Writes the re-read record. Default: one index write stamped with the entity's current run id, refreshed as
   * `request.refresh` says. The webhook worker passes its grouped writer (many events, one bulk request).
   */
  readonly writeRecord?: RecordWriter;
}

/** Writes one re-read record; `readAt` is when its re-read began (its version in the copy). */
export type RecordWriter = (
  row: ConnectorRow,
  entity: EntityCatalog,
  record: Record<string, unknown>,
  readAt: number,
) => Promise<void>;

export interface RefreshRecordRequest {
  /** A replicated (searchable) entity of the connector's kind. */
  readonly entity: string;
  /** Params of the entity's `get` action naming the record, e.g. `{ customer_id: 'c_1' }`. */
  readonly params: Record<string, unknown>;
  /**
   * `get` (default); `list` for entities without a get whose list can be filtered down to the record
   * (Typeform responses: `included_response_ids`): the listed record with key `key` is the record, none is a 404.
   */
  readonly via?: 'get' | 'list';
  /** The record key (the entity's `recordKey` value): what is removed when the upstream answers 404. */
  readonly key: string;
  /** `wait_for` (default): return once the change is visible to search. */
  readonly refresh?: IndexRefresh;
  /** Who asked (the change feed's `source`): a webhook (default) or read-your-writes after execute. */
  readonly source?: Extract<ChangeSource, 'webhook' | 'execute'>;
  readonly signal?: AbortSignal;
}

export type RefreshRecordOutcome =
  | { readonly status: 'upserted'; readonly key: string }
  | { readonly status: 'removed'; readonly key: string }
  | { readonly status: 'skipped'; readonly reason: string };

/** Stamped on documents written outside a sync run (a later full pass re-stamps or removes them as usual). */
const OUTSIDE_RUN = 'refresh';

/**
 * Re-reads one record from the upstream (its `get` action, with the stored credentials) and upserts it into the
 * index, or removes it (a tombstone) when the upstream answers 404; either write carries the instant the re-read
 * began, so it never replaces a newer read of the record (docs/changes.md). The upstream is the source: callers (webhooks,
 * read-your-writes after execute) only say which record changed. Other upstream errors are thrown as they come
 * (ConnectorError, UpstreamRateLimitError) so a queue can retry them.
 */
export async function refreshRecord(
  deps: RefreshRecordDeps,
  row: ConnectorRow,
  request: RefreshRecordRequest,
): Promise<RefreshRecordOutcome> {
  const kind = await deps.hosted.kinds.forRow(row);
  const catalog = kind?.definition.catalog;
  const entity = catalog ? entityOf(catalog, request.entity) : undefined;
  if (!entity?.searchable) return { status: 'skipped', reason: `${request.entity} is not replicated` };
  const via = request.via ?? 'get';
  if (!entity.actions[via]) return { status: 'skipped', reason: `${request.entity} has no ${via} action` };
  const refresh = request.refresh ?? 'wait_for';
  const source = request.source ?? 'webhook';
  const remove = () =>
    deps.indexStore.removeRecords(indexKindOf(row), entity, row.id, [request.key], { readAt, refresh, source });
  let record: unknown;
  // Taken before the request leaves: the upstream's answer is at least this new, so it is this write's version.
  const readAt = Date.now();
  try {
    const connector = await deps.hosted.forRow(row, kind ? { kind } : {});
    const result = await connector.execute({
      entity: request.entity,
      action: via,
      params: request.params,
      signal: request.signal,
    });
    const data = result.type === 'json' ? result.body.data : undefined;
    record =
      via === 'get'
        ? data
        : (Array.isArray(data) ? data : []).find((r) => isRecord(r) && recordKeyOf(entity, r) === request.key);
    if (via === 'list' && record === undefined) {
      await remove();
      return { status: 'removed', key: request.key };
    }
  } catch (error) {
    if (isConnectorError(error) && error.code === 'upstream_not_found') {
      await remove();
      return { status: 'removed', key: request.key };
    }
    throw error;
  }
  if (!isRecord(record)) {
    return { status: 'skipped', reason: 'the upstream answered without a record' };
  }
  const key = recordKeyOf(entity, record);
  if (key === null) return { status: 'skipped', reason: 'the upstream record has no key' };
  if (deps.writeRecord) await deps.writeRecord(row, entity, record, readAt);
  else {
    const runId = await currentRunId(deps.syncStates, row.id, entity.name);
    await deps.indexStore.writeBatch(indexKindOf(row), entity, row.id, runId, [record], { readAt, refresh, source });
  }
  return { status: 'upserted', key };
}

/**
 * The run id to stamp a record written outside a sync run with. A full-refresh run in flight removes, at its end,
 * what it did not write: stamping the record with that run's id keeps a record it already passed from being
 * removed as "disappeared".
 */
export async function currentRunId(
  syncStates: Pick<SyncStatesRepository, 'get'>,
  connectorId: string,
  entity: string,
): Promise<string> {
  const state = await syncStates.get(connectorId, entity);
  return state?.run_id ?? OUTSIDE_RUN;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
