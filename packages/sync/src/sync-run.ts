import { randomUUID } from 'node:crypto';
import {
  at,
  type Connector,
  type EntityCatalog,
  entityOf,
  findConnectorDefinition,
  type ReadPage,
} from '@conduit/connectors';
import type { ConnectorRow, RunRef } from '@conduit/db';
import type { SyncDeps } from './deps.ts';
import { readAhead } from './read-ahead.ts';

/** Late data: incremental runs re-read this far behind the cursor (writes are idempotent). */
export const LOOKBACK_MS = 60 * 60 * 1000;

/** Where an interrupted run resumes: which parent, the upstream position inside it, the cursor seen so far. */
interface Checkpoint {
  parentIndex: number;
  resume: unknown;
  maxCursor: string | null;
  indexed: number;
}

export class SyncInterrupted extends Error {
  override name = 'SyncInterrupted';
}

export interface SyncRunControl {
  /** The run's owner token (RunRef.owner): a later run with another token supersedes this one. */
  readonly owner: string;
  /** Set on SIGTERM: the run stops after the page in flight is written and checkpointed. */
  readonly stopRequested: () => boolean;
  /** Called once the connector row is loaded (metrics label runs by kind). */
  readonly onStart?: (info: { kind: string }) => void;
  /** Called after every checkpoint (heartbeats, progress). */
  readonly onPage?: (progress: { pages: number; records: number; pageIndexed: number }) => Promise<void>;
}

export type SyncRunOutcome = { status: 'done'; indexed: number } | { status: 'skipped'; reason: string };

/**
 * One replication run of one entity of one connector: read from the upstream page by page, bulk-index each
 * page, checkpoint after each acknowledged write; at the end record the cursor (incremental) or remove what
 * disappeared upstream (full refresh, only after a complete run). At-least-once with idempotent document ids.
 */
export async function runEntitySync(
  connectorId: string,
  entityName: string,
  deps: SyncDeps,
  control: SyncRunControl,
): Promise<SyncRunOutcome> {
  const run: RunRef = { connectorId, entity: entityName, owner: control.owner };
  const row = await deps.connectors.findForSync(connectorId);
  if (!row) return { status: 'skipped', reason: 'connector deleted' };
  control.onStart?.({ kind: row.connector_type });
  const catalog = findConnectorDefinition(row.connector_type)?.catalog;
  const entity = catalog ? entityOf(catalog, entityName) : undefined;
  if (!entity?.sync || !entity.searchable) return { status: 'skipped', reason: 'entity not replicated' };
  await deps.syncStates.ensure(connectorId, [entityName]);
  const state = await deps.syncStates.startRun(run, randomUUID());
  const runId = state.run_id!;
  const log = deps.logger.child({ connector_id: connectorId, entity: entityName, run_id: runId });
  const since = sinceFor(row, entity, state.cursor);
  const checkpoint: Checkpoint = (state.checkpoint as Checkpoint | null) ?? {
    parentIndex: 0,
    resume: undefined,
    maxCursor: null,
    indexed: 0,
  };
  const connector = deps.hosted.forRow(row);
  const parents = await parentParamsList(connector, row, entity);
  const started = performance.now();
  let pages = 0;
  log.info('sync run started', { since, resumed: state.checkpoint !== null, parents: parents.length });

  for (; checkpoint.parentIndex < parents.length; checkpoint.parentIndex++) {
    const parentParams = parents[checkpoint.parentIndex];
    const pagesOf: AsyncIterable<ReadPage> = connector.read(entityName, {
      since,
      ...(parentParams ? { parentParams } : {}),
      ...(checkpoint.resume === undefined ? {} : { resume: checkpoint.resume }),
    });
    for await (const page of readAhead(pagesOf)) {
      const batch = await deps.indexStore.writeBatch(row.connector_type, entity, connectorId, runId, page.records);
      checkpoint.maxCursor = maxCursor(checkpoint.maxCursor, page.records, entity.sync.cursorField);
      checkpoint.indexed += batch.indexed;
      checkpoint.resume = page.checkpoint ?? undefined;
      const saved = await deps.syncStates.saveCheckpoint(run, checkpoint, batch.indexed);
      if (saved === 'deleted') {
        // Deleted mid-run: remove what this run wrote after the API's delete, and stop.
        await deps.indexStore.deleteConnector(row.connector_type, [entityName], connectorId);
        log.info('connector deleted during the run; its documents were removed');
        return { status: 'skipped', reason: 'connector deleted' };
      }
      if (saved === 'superseded') {
        log.warn('another run took over this entity; stopping');
        return { status: 'skipped', reason: 'superseded by a newer run' };
      }
      pages++;
      await control.onPage?.({ pages, records: checkpoint.indexed, pageIndexed: batch.indexed });
      if (pages % 20 === 0) log.info('sync progress', progress(pages, checkpoint.indexed, started));
      if (control.stopRequested()) {
        await deps.syncStates.pauseRun(run);
        throw new SyncInterrupted('stopped after a checkpoint');
      }
    }
    checkpoint.resume = undefined;
  }

  // Make this run's writes visible before deciding what disappeared and counting.
  await deps.indexStore.refresh(row.connector_type, entityName);
  if (entity.sync.mode === 'full_refresh') {
    const removed = await deps.indexStore.deleteNotWrittenBy(row.connector_type, entityName, connectorId, runId);
    if (removed > 0) log.info('removed records that disappeared upstream', { removed });
  }
  const recordCount = await deps.indexStore.count(row.connector_type, entityName, connectorId);
  const finished = await deps.syncStates.finishRun(run, {
    cursor: checkpoint.maxCursor ?? state.cursor ?? null,
    recordCount,
  });
  if (finished !== 'ok') return { status: 'skipped', reason: `not recorded: ${finished}` };
  log.info('sync run finished', { ...progress(pages, checkpoint.indexed, started), record_count: recordCount });
  return { status: 'done', indexed: checkpoint.indexed };
}

function sinceFor(row: ConnectorRow, entity: EntityCatalog, cursor: unknown): string {
  const startDate = String((row.replication_config as { start_date?: unknown }).start_date);
  if (entity.sync?.mode !== 'incremental' || typeof cursor !== 'string') return startDate;
  const cursorMs = Date.parse(cursor);
  if (Number.isNaN(cursorMs)) return cursor;
  const lookedBack = new Date(Math.max(cursorMs - LOOKBACK_MS, Date.parse(startDate))).toISOString();
  return lookedBack.replace('.000Z', 'Z');
}

/** Child entities are read once per parent record; everything else once, without parent params. */
async function parentParamsList(
  connector: Connector,
  row: ConnectorRow,
  entity: EntityCatalog,
): Promise<(Record<string, unknown> | undefined)[]> {
  const parent = entity.sync?.parent;
  if (!parent) return [undefined];
  const startDate = String((row.replication_config as { start_date?: unknown }).start_date);
  const list: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for await (const page of connector.read(parent.entity, { since: startDate })) {
    for (const record of page.records) {
      const value = at(record, parent.from);
      if (value === undefined || value === null || seen.has(String(value))) continue;
      seen.add(String(value));
      list.push({ [parent.param]: value });
    }
  }
  return list;
}

function maxCursor(
  current: string | null,
  records: readonly Record<string, unknown>[],
  field: string | undefined,
): string | null {
  if (!field) return current;
  let best = current;
  for (const record of records) {
    const value = at(record, field);
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    const text = String(value);
    if (best === null || compareCursor(text, best) > 0) best = text;
  }
  return best;
}

function compareCursor(a: string, b: string): number {
  const da = Date.parse(a);
  const db = Date.parse(b);
  if (!Number.isNaN(da) && !Number.isNaN(db)) return da - db;
  return a < b ? -1 : a > b ? 1 : 0;
}

function progress(pages: number, records: number, started: number) {
  const seconds = (performance.now() - started) / 1000;
  return { pages, records, records_per_s: Math.round(records / Math.max(seconds, 0.001)) };
}
