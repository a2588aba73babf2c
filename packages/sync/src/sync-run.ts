import { randomUUID } from 'node:crypto';
import { intervalMs } from '@conduit/config';
import { at, type Connector, type EntityCatalog, entityOf, needsFullPasses, type ReadPage } from '@conduit/connectors';
import type { ConnectorRow, RunRef, RunWrite, SyncStateRow } from '@conduit/db';
import { indexKindOf } from '@conduit/hosted-connectors';
import type { Logger } from '@conduit/observability';
import { connectorChangesChannel } from '@conduit/queues';
import type { WrittenChanges } from '@conduit/search-store';
import type { SyncDeps } from './deps.ts';
import { pageGroups } from './page-groups.ts';

/**
 * Late data: incremental runs re-read at least this far behind the cursor (writes are idempotent), more where the
 * catalog documents a longer vendor delay (ChangeCapture.lookbackMs, e.g. PayPal transactions: 3 hours).
 */
export const LOOKBACK_MS = 60 * 60 * 1000;
/**
 * Upstream pages read ahead while the index is written, and written together: one bulk request, checkpoint and
 * heartbeat per group instead of per page (bench:sync: per-page round trips held a run to ~0.4-0.7 of raw bulk).
 */
const WRITE_GROUPS = { maxRecords: 1000, maxAhead: 10 } as const;

/**
 * Where an interrupted run resumes: which parent, the upstream position inside it, the cursor seen so far, and
 * whether it is a full pass (a resumed run keeps the kind it started as).
 */
interface Checkpoint {
  parentIndex: number;
  resume: unknown;
  maxCursor: string | null;
  indexed: number;
  full?: boolean;
  /** Changes-feed entities: the feed position reported by the read so far (ReadPage.position). */
  position?: string | null;
  /**
   * When this run began reading the upstream (ms since epoch): the version of a full pass's removals, kept across
   * a resume so they stay older than anything read since the pass began.
   */
  readFrom?: number;
}

export class SyncInterrupted extends Error {
  override name = 'SyncInterrupted';
}

export interface SyncRunControl {
  /** The run's owner token (RunRef.owner): a later run with another token supersedes this one. */
  readonly owner: string;
  /** Set on SIGTERM: the run stops after the pages in flight are written and checkpointed. */
  readonly stopRequested: () => boolean;
  /** Called once the connector row is loaded (metrics label runs by kind). */
  readonly onStart?: (info: { kind: string }) => void;
  /** Called after every checkpoint (heartbeats, progress). */
  readonly onPage?: (progress: { pages: number; records: number; pageIndexed: number }) => Promise<void>;
  /**
   * `incremental`: skip a periodic full pass that would be due (a first run, a full-refresh entity and a requested
   * full pass still read everything). Absent: the entity's own rhythm. A full pass is asked for through
   * SyncStatesRepository.requestFullPass, so it survives the job deduplication.
   */
  readonly mode?: 'incremental';
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
  const kind = await deps.hosted.kinds.forRow(row);
  const entity = kind ? entityOf(kind.definition.catalog, entityName) : undefined;
  if (!kind || !entity?.sync || !entity.searchable) return { status: 'skipped', reason: 'entity not replicated' };
  await deps.syncStates.ensure(connectorId, [entityName]);
  const state = await deps.syncStates.startRun(run, randomUUID());
  const runId = state.run_id!;
  const log = deps.logger.child({ connector_id: connectorId, entity: entityName, run_id: runId });
  const resumed = state.checkpoint as Checkpoint | null;
  const full = resumed?.full ?? isFullPass(entity, state, intervalMs(deps.env.FULL_SYNC_INTERVAL), control.mode);
  const since = full ? startDateOf(row) : sinceFor(row, entity, state.cursor);
  const feed = entity.changeCapture?.cursor === 'feed';
  const position = !full && feed && typeof state.cursor === 'string' ? state.cursor : undefined;
  const checkpoint: Checkpoint = resumed ?? {
    parentIndex: 0,
    resume: undefined,
    maxCursor: null,
    indexed: 0,
    full,
    position: null,
  };
  checkpoint.readFrom ??= Date.now();
  // Sync pages give way to live calls in the connector's upstream budget.
  const connector = await deps.hosted.forRow(row, { lane: 'sync', kind });
  const parents = await parentParamsList(connector, row, entity);
  const started = performance.now();
  /** Write groups not yet checkpointed, oldest first (see below). */
  const inFlight: { written: Promise<unknown>; done: Promise<RunWrite> }[] = [];
  const stopWritingAs = async (outcome: Exclude<RunWrite, 'ok'>): Promise<SyncRunOutcome> => {
    // Bulks still in flight land first: removing a deleted connector's documents before them would leave some.
    await Promise.allSettled(inFlight.map((group) => group.done));
    if (outcome === 'deleted') return removeWritesOfDeleted(deps, row, entityName, log);
    log.warn('another run took over this entity; stopping');
    return { status: 'skipped', reason: 'superseded by a newer run' };
  };
  let pages = 0;
  let loggedAtPages = 0;
  // Where the run's time went (ms), logged with its end: whether it waited on the upstream, the engine or Postgres.
  const phases = { upstream_wait: 0, page_reads: 0, bulk: 0, bulk_wait: 0, tail_wait: 0, feed: 0, checkpoint: 0 };
  const timed = async <T>(phase: keyof typeof phases, work: Promise<T>): Promise<T> => {
    const from = performance.now();
    try {
      return await work;
    } finally {
      phases[phase] += performance.now() - from;
    }
  };
  log.info('sync run started', { since, full, resumed: resumed !== null, parents: parents.length });

  // Up to SYNC_WRITE_GROUPS_IN_FLIGHT groups are bulk-indexed at once, so the engine is not idle while a group's
  // tail (its change-feed append, then its checkpoint and heartbeat) and the next upstream pages are awaited. The
  // tails run one at a time, in group order, each once its own bulk and the tail before it are done: the feed keeps
  // the order the copy applied the writes (two groups holding the same record: the engine keeps the newer read and
  // refuses the older as stale, whichever lands first, and only an applied write is appended), and a checkpoint is
  // only saved once its group and every group before it are indexed and in the feed (a crash re-reads from the last
  // one: nothing is lost). A failed group fails every tail after it, so no later checkpoint is saved.
  const depth = deps.env.SYNC_WRITE_GROUPS_IN_FLIGHT;
  const cursorField = entity.sync.cursorField;
  let previous: Promise<RunWrite> = Promise.resolve('ok');
  /** Waits until at most `keep` groups are unfinished; the first outcome that is not `ok`, if any. */
  const drain = async (keep: number): Promise<RunWrite> => {
    while (inFlight.length > keep) {
      const outcome = await timed('tail_wait', inFlight.shift()!.done);
      if (outcome !== 'ok') return outcome;
    }
    return 'ok';
  };
  /**
   * Room for one more group: at most `depth` bulks in flight, and `depth` groups waiting for their tails (with 1,
   * the next group's bulk overlaps the last group's tail only).
   */
  const slot = async (): Promise<RunWrite> => {
    const outcome = await drain(depth);
    if (outcome !== 'ok' || inFlight.length < depth) return outcome;
    await timed(
      'bulk_wait',
      inFlight[inFlight.length - depth]!.written.catch(() => undefined),
    );
    return 'ok';
  };
  try {
    for (; checkpoint.parentIndex < parents.length; checkpoint.parentIndex++) {
      const parentParams = parents[checkpoint.parentIndex];
      const pagesOf = stampedPages(
        (ms) => {
          phases.page_reads += ms;
        },
        connector.read(entityName, {
          since,
          ...(parentParams ? { parentParams } : {}),
          ...(checkpoint.resume === undefined ? {} : { resume: checkpoint.resume }),
          ...(position === undefined ? {} : { position }),
        }),
      );
      const source = (checkpoint.full ?? full) ? 'full_pass' : 'sync';
      let waitFrom = performance.now();
      for await (const group of pageGroups(pagesOf, WRITE_GROUPS)) {
        phases.upstream_wait += performance.now() - waitFrom;
        const records = group.flatMap((page) => page.records);
        pages += group.length;
        const pagesNow = pages;
        const write = timed('bulk', writeGroup(deps, row, entity, runId, group, records, source));
        const after = previous;
        const done = (async (): Promise<RunWrite> => {
          const written = await write;
          const prior = await after;
          if (prior !== 'ok') return prior;
          const indexed = written[0].indexed;
          checkpoint.maxCursor = maxCursor(checkpoint.maxCursor, records, cursorField);
          for (const page of group) if (page.position !== undefined) checkpoint.position = page.position;
          checkpoint.indexed += indexed;
          checkpoint.resume = group[group.length - 1]!.checkpoint ?? undefined;
          for (const changes of written) await timed('feed', deps.indexStore.recordChanges(changes));
          const saved = await timed('checkpoint', deps.syncStates.saveCheckpoint(run, { ...checkpoint }, indexed));
          if (saved === 'ok')
            await control.onPage?.({ pages: pagesNow, records: checkpoint.indexed, pageIndexed: indexed });
          return saved;
        })();
        // Awaited when its slot is needed (or below); until then a failure must not surface as an unhandled rejection.
        done.catch(() => undefined);
        previous = done;
        inFlight.push({ written: write, done });
        if (pages >= loggedAtPages + 20) {
          loggedAtPages = pages;
          log.info('sync progress', progress(pages, checkpoint.indexed, started));
        }
        if (control.stopRequested()) {
          const saved = await drain(0);
          if (saved !== 'ok') return await stopWritingAs(saved);
          await deps.syncStates.pauseRun(run);
          throw new SyncInterrupted('stopped after a checkpoint');
        }
        // Room for the next group before taking it: the pages read meanwhile make it (fuller bulks).
        const before = await slot();
        if (before !== 'ok') return await stopWritingAs(before);
        waitFrom = performance.now();
      }
      const saved = await drain(0);
      if (saved !== 'ok') return await stopWritingAs(saved);
      checkpoint.resume = undefined;
    }
  } finally {
    // A failed read or write leaves the groups before it to finish: the last checkpoint is where a retry resumes.
    await Promise.allSettled(inFlight.map((group) => group.done));
  }

  // Make this run's writes visible before deciding what disappeared and counting.
  await deps.indexStore.refresh(indexKindOf(row), entityName);
  const wasFull = checkpoint.full ?? full;
  if (wasFull) {
    const removed = await deps.indexStore.removeNotWrittenBy(
      indexKindOf(row),
      entity,
      connectorId,
      runId,
      checkpoint.readFrom,
    );
    if (removed > 0) log.info('removed records that disappeared upstream', { removed });
  }
  const recordCount = await deps.indexStore.count(indexKindOf(row), entityName, connectorId);
  const cursor = feed ? (checkpoint.position ?? state.cursor) : (checkpoint.maxCursor ?? state.cursor);
  const finished = await deps.syncStates.finishRun(run, { cursor: cursor ?? null, recordCount, full: wasFull });
  if (finished === 'deleted') return removeWritesOfDeleted(deps, row, entityName, log);
  if (finished !== 'ok') return { status: 'skipped', reason: `not recorded: ${finished}` };
  // Search answers carry the end of the last completed pass (meta.synced_at), which the API instances remember.
  // The run is recorded either way: without the message they read it again within their cache's lifetime.
  await deps.redis
    .publish(connectorChangesChannel(deps.env.NAMESPACE), connectorId)
    .catch((error: Error) => log.warn('could not announce the finished run', { error: error.message }));
  log.info('sync run finished', {
    ...progress(pages, checkpoint.indexed, started),
    record_count: recordCount,
    phases_ms: Object.fromEntries(Object.entries(phases).map(([phase, ms]) => [phase, Math.round(ms)])),
  });
  return { status: 'done', indexed: checkpoint.indexed };
}

/**
 * One group's writes to the copy: its records (each stamped with the instant its page's read began: a newer read
 * already in the copy, e.g. a webhook's re-read while the page was on its way, is kept), then what a changes feed
 * says left the upstream (idempotent; a full pass would also catch it). Their feed appends are the caller's.
 */
async function writeGroup(
  deps: SyncDeps,
  row: ConnectorRow,
  entity: EntityCatalog,
  runId: string,
  group: readonly (ReadPage & { readAt: number })[],
  records: readonly Record<string, unknown>[],
  source: 'sync' | 'full_pass',
): Promise<[Awaited<ReturnType<SyncDeps['indexStore']['writeRecords']>>, ...WrittenChanges[]]> {
  const readAt = group.flatMap((page) => page.records.map(() => page.readAt));
  const batch = await deps.indexStore.writeRecords(indexKindOf(row), entity, row.id, runId, records, {
    readAt,
    source,
  });
  const removed = group.flatMap((page) => (page.removed ?? []).map((key) => ({ key, readAt: page.readAt })));
  if (removed.length === 0) return [batch];
  const removals = await deps.indexStore.writeRemovals(
    indexKindOf(row),
    entity,
    row.id,
    removed.map((r) => r.key),
    { readAt: removed.map((r) => r.readAt), source },
  );
  return [batch, removals];
}

/**
 * The connector was deleted while this run wrote (its checkpoint or its end found no row): a batch that landed
 * after the API's delete would stay in the index for good, so the run removes the entity's documents and stops.
 */
async function removeWritesOfDeleted(
  deps: SyncDeps,
  row: ConnectorRow,
  entityName: string,
  log: Logger,
): Promise<SyncRunOutcome> {
  await deps.indexStore.deleteConnector(indexKindOf(row), [entityName], row.id);
  log.info('connector deleted during the run; its documents were removed');
  return { status: 'skipped', reason: 'connector deleted' };
}

function startDateOf(row: ConnectorRow): string {
  return String((row.replication_config as { start_date?: unknown }).start_date);
}

/**
 * Whether this run reads everything from start_date and then removes what disappeared (docs/architecture.md): always for
 * full-refresh entities, the first pass, and a requested one; for incremental entities whose cursor misses edits
 * or deletions (catalog ChangeCapture), once the last full pass is FULL_SYNC_INTERVAL old.
 */
export function isFullPass(
  entity: EntityCatalog,
  state: Pick<SyncStateRow, 'last_success_at' | 'last_full_sync_at' | 'full_requested'>,
  fullEveryMs: number,
  mode: 'incremental' | undefined,
  now = Date.now(),
): boolean {
  if (entity.sync?.mode !== 'incremental' || state.last_success_at === null || state.full_requested) return true;
  if (mode === 'incremental' || !needsFullPasses(entity)) return false;
  return state.last_full_sync_at === null || now - state.last_full_sync_at.getTime() >= fullEveryMs;
}

function sinceFor(row: ConnectorRow, entity: EntityCatalog, cursor: unknown): string {
  const startDate = startDateOf(row);
  if (entity.sync?.mode !== 'incremental' || entity.changeCapture?.cursor === 'feed' || typeof cursor !== 'string')
    return startDate;
  const cursorMs = Date.parse(cursor);
  if (Number.isNaN(cursorMs)) return cursor;
  const lookback = Math.max(LOOKBACK_MS, entity.changeCapture?.lookbackMs ?? 0);
  const lookedBack = new Date(Math.max(cursorMs - lookback, Date.parse(startDate))).toISOString();
  return lookedBack.replace('.000Z', 'Z');
}

/**
 * The read's pages, each with the instant its read began (ms since epoch): taken before asking the source for the
 * page, so before its request is sent (reads are lazy: each page's request leaves inside that call), and never
 * later than the upstream state the page shows.
 */
async function* stampedPages(
  onRead: (ms: number) => void,
  source: AsyncIterable<ReadPage>,
): AsyncGenerator<ReadPage & { readAt: number }> {
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      const readAt = Date.now();
      const from = performance.now();
      const next = await iterator.next();
      onRead(performance.now() - from);
      if (next.done) return;
      yield { ...next.value, readAt };
    }
  } finally {
    await iterator.return?.();
  }
}

/** Child entities are read once per parent record; everything else once, without parent params. */
async function parentParamsList(
  connector: Connector,
  row: ConnectorRow,
  entity: EntityCatalog,
): Promise<(Record<string, unknown> | undefined)[]> {
  const parent = entity.sync?.parent;
  if (!parent) return [undefined];
  const list: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for await (const page of connector.read(parent.entity, { since: startDateOf(row) })) {
    for (const record of page.records) {
      const value = at(record, parent.from);
      if (value === undefined || value === null) continue;
      const params: Record<string, unknown> = { [parent.param]: value };
      for (const [param, path] of Object.entries(parent.extra ?? {})) {
        const extra = at(record, path);
        if (extra !== undefined && extra !== null) params[param] = extra;
      }
      // Deduplicated on every param: two organizations may each have a project with the same slug.
      const key = JSON.stringify(params);
      if (seen.has(key)) continue;
      seen.add(key);
      list.push(params);
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
