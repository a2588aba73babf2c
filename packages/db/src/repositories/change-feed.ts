import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';
import { recordChangesOf, type WrittenChanges } from './applied-writes.ts';

export type ChangeType = 'record.created' | 'record.updated' | 'record.deleted';

/** A write the copy applied, as the feed sees it: a record's content hash (null for a removal) and version. */
export interface AppliedRecordChange {
  readonly key: string;
  /** The write's read instant (ms since epoch), its version in the copy. */
  readonly version: number;
  /** Hash of the record's content; null for a removal. */
  readonly contentHash: string | null;
  /** The record as read, as JSON text (the caller serializes it once, for its hash and here); null for a removal. */
  readonly recordJson: string | null;
}

export interface ChangeEventRow {
  readonly seq: number;
  readonly type: ChangeType;
  readonly entity: string;
  readonly key: string;
  readonly record: Record<string, unknown> | null;
  readonly source: string;
  readonly changed_at: Date;
}

export interface FeedHead {
  /** The number of the last event appended (0: none yet). */
  readonly lastSeq: number;
  /** Every event up to this number was deleted by retention (0: none). */
  readonly purgedThrough: number;
}

interface RecordState {
  version: number;
  content_hash: string | null;
  deleted: boolean;
  /** The event that last changed the record; null when unknown (a state from before migration 0040). */
  event_seq: number | null;
}

/** A change event with the record it replaced, for deciding which cached answers it may concern. */
export interface ChangeWithPrior {
  readonly seq: number;
  readonly type: ChangeType;
  readonly key: string;
  /** The record as read; null for a removal. */
  readonly record: Record<string, unknown> | null;
  /**
   * The record as it was before: null when there was none (a creation), undefined when unknown (its event is past
   * the retention, or older than the feed's memory of it): an unknown record may have been anywhere.
   */
  readonly prior: Record<string, unknown> | null | undefined;
}

/** Called once an append committed, with the number of its last event (the answer cache's signal). */
export type OnAppended = (connectorId: string, entity: string, lastSeq: number) => Promise<void>;

/** Rows of one retention delete: small enough to keep each transaction short. */
const PURGE_BATCH = 10_000;

/**
 * The change feed of each connector (docs/changes.md). Appends are serialized per connector by the lock on its
 * head row, so events are numbered in the order the copy applied the writes, and each record's last version and
 * content hash tell a creation, an update (content changed) and an unchanged re-read apart.
 */
export class ChangeFeedRepository {
  readonly #db: Kysely<Database>;
  readonly #onAppended: OnAppended | undefined;
  /**
   * `onAppended`: awaited after each append that made events commits (every API and worker process announces
   * them to the API instances' answer caches this way, docs/architecture.md); an append is not done before it is.
   */
  constructor(db: Kysely<Database>, options: { readonly onAppended?: OnAppended } = {}) {
    this.#db = db;
    this.#onAppended = options.onAppended;
  }

  /**
   * Appends the events of writes the copy applied to one entity of a connector, in order; returns how many.
   * A write older than the record's last applied one (it reached the copy first, this append came late) and a
   * re-read of unchanged content make no event. A connector deleted meanwhile makes none either.
   */
  async append(
    connectorId: string,
    entity: string,
    source: string,
    changes: readonly AppliedRecordChange[],
  ): Promise<number> {
    if (changes.length === 0) return 0;
    let appended: { count: number; lastSeq: number };
    try {
      appended = await this.#db.transaction().execute(async (trx) => {
        // The connector first, as DELETE takes it before its cascade reaches the head, states and events: the same
        // lock order, no deadlock (holding the head, an insert's key check would wait on a delete that waits on
        // the head). A connector deleted meanwhile has no row here: nothing to append.
        const connector = await trx
          .selectFrom('connectors')
          .select('id')
          .where('id', '=', connectorId)
          .forKeyShare()
          .executeTakeFirst();
        if (!connector) return { count: 0, lastSeq: 0 };
        // Creates the head on first use; either way takes its row lock until commit (one appender per connector).
        const head = await trx
          .insertInto('change_feed_heads')
          .values({ connector_id: connectorId })
          .onConflict((oc) => oc.column('connector_id').doUpdateSet({ connector_id: connectorId }))
          .returning('last_seq')
          .executeTakeFirstOrThrow();
        const keys = [...new Set(changes.map((c) => c.key))];
        // One primary-key probe per key, whatever the table's statistics: `key = any(…)` let a planner without
        // them (autovacuum off, or not yet run on a growing table) read every state of the entity and filter,
        // a cost growing with the entity's records (docs/changes.md). LIMIT keeps the lateral subquery a
        // per-key lookup instead of a join the planner may turn into a scan.
        const { rows } = await sql<{
          key: string;
          version: string;
          content_hash: string | null;
          deleted: boolean;
          event_seq: string | null;
        }>`
          select s.key, s.version, s.content_hash, s.deleted, s.event_seq
          from unnest(${keys}::text[]) as k(key)
          cross join lateral (
            select key, version, content_hash, deleted, event_seq from record_states
            where connector_id = ${connectorId} and entity = ${entity} and key = k.key
            limit 1
          ) as s`.execute(trx);
        const states = new Map<string, RecordState>(
          rows.map((r) => [
            r.key,
            {
              version: Number(r.version),
              content_hash: r.content_hash,
              deleted: r.deleted,
              event_seq: r.event_seq === null ? null : Number(r.event_seq),
            },
          ]),
        );
        const first = Number(head.last_seq) + 1;
        const updated = new Map<string, RecordState>();
        const events: { type: ChangeType; change: AppliedRecordChange; priorSeq: number | null }[] = [];
        for (const change of changes) {
          const prior = states.get(change.key);
          if (prior && prior.version > change.version) continue;
          const type = changeType(prior, change);
          const seq = first + events.length;
          const next = {
            version: change.version,
            content_hash: change.contentHash,
            deleted: change.contentHash === null,
            event_seq: type === null ? (prior?.event_seq ?? null) : seq,
          };
          states.set(change.key, next);
          // An unchanged re-read leaves the state as it was: the copy's own version decides what is newer.
          if (type !== null) {
            updated.set(change.key, next);
            // The event before it, for an update or a removal (a creation replaced nothing).
            events.push({ type, change, priorSeq: type === 'record.created' ? null : (prior?.event_seq ?? null) });
          }
        }
        if (updated.size > 0) {
          // One statement whatever the batch size: the rows travel as one array per column (unnest), not as
          // six parameters per row that the server parses one by one.
          const states = [...updated];
          await sql`
            insert into record_states (connector_id, entity, key, version, content_hash, deleted, event_seq)
            select ${connectorId}::text, ${entity}::text, s.key, s.version, s.content_hash, s.deleted, s.event_seq
            from unnest(
              ${states.map(([key]) => key)}::text[],
              ${states.map(([, state]) => String(state.version))}::bigint[],
              ${states.map(([, state]) => state.content_hash)}::text[],
              ${states.map(([, state]) => state.deleted)}::boolean[],
              ${states.map(([, state]) => (state.event_seq === null ? null : String(state.event_seq)))}::bigint[]
            ) as s(key, version, content_hash, deleted, event_seq)
            on conflict (connector_id, entity, key) do update set
              version = excluded.version, content_hash = excluded.content_hash, deleted = excluded.deleted,
              event_seq = excluded.event_seq`.execute(trx);
        }
        if (events.length === 0) return { count: 0, lastSeq: 0 };
        await sql`
          insert into change_events (connector_id, seq, type, entity, key, record, source, prior_seq)
          select ${connectorId}::text, ${first}::bigint + e.ord - 1, e.type, ${entity}::text, e.key, e.record::json,
            ${source}::text, e.prior_seq
          from unnest(
            ${events.map(({ type }) => type)}::text[],
            ${events.map(({ change }) => change.key)}::text[],
            ${events.map(({ change }) => change.recordJson)}::text[],
            ${events.map(({ priorSeq }) => (priorSeq === null ? null : String(priorSeq)))}::bigint[]
          ) with ordinality as e(type, key, record, prior_seq, ord)`.execute(trx);
        await trx
          .updateTable('change_feed_heads')
          .set({ last_seq: first + events.length - 1 })
          .where('connector_id', '=', connectorId)
          .execute();
        return { count: events.length, lastSeq: first + events.length - 1 };
      });
    } catch (error) {
      if ((error as { code?: string }).code === '23503') return 0; // the connector was deleted
      throw error;
    }
    if (appended.count > 0) await this.#onAppended?.(connectorId, entity, appended.lastSeq);
    return appended.count;
  }

  /**
   * Appends what a write to the copy applied (docs/changes.md). The writer calls it after the engine acknowledged
   * the write: a crash in between loses the events only until the record is read again (the next read is newer, so
   * it applies, and its content differs from the feed's last state), so at least once, and never for a write the
   * copy refused. A caller that checkpoints must not checkpoint past a write before its append resolved.
   */
  appendWritten(written: WrittenChanges): Promise<number> {
    const { target, applied } = written;
    return this.append(target.connectorId, target.entity, target.source, recordChangesOf(applied));
  }

  async head(connectorId: string): Promise<FeedHead> {
    const row = await this.#db
      .selectFrom('change_feed_heads')
      .select(['last_seq', 'purged_through'])
      .where('connector_id', '=', connectorId)
      .executeTakeFirst();
    return { lastSeq: Number(row?.last_seq ?? 0), purgedThrough: Number(row?.purged_through ?? 0) };
  }

  /** Up to `limit` events numbered after `after`, oldest first, of one entity when given. */
  async read(
    connectorId: string,
    options: { after: number; limit: number; entity?: string | undefined },
  ): Promise<ChangeEventRow[]> {
    let query = this.#db
      .selectFrom('change_events')
      .select(['seq', 'type', 'entity', 'key', 'record', 'source', 'changed_at'])
      .where('connector_id', '=', connectorId)
      .where('seq', '>', String(options.after))
      .orderBy('seq')
      .limit(options.limit);
    if (options.entity !== undefined) query = query.where('entity', '=', options.entity);
    const rows = await query.execute();
    return rows.map((r) => ({ ...r, seq: Number(r.seq), type: r.type as ChangeType }));
  }

  /**
   * Up to `limit` events of one entity numbered after `after` up to `through`, oldest first, each with the record it replaced
   * (ChangeWithPrior.prior): what the answer cache reads to decide which answers a change may concern.
   */
  async readWithPrior(
    connectorId: string,
    entity: string,
    range: { readonly after: number; readonly through: number; readonly limit: number },
  ): Promise<ChangeWithPrior[]> {
    // `prior_seq` is null for a creation (nothing replaced) and for events from before it existed (unknown).
    const { rows } = await sql<{
      seq: string;
      type: ChangeType;
      key: string;
      record: Record<string, unknown> | null;
      prior_seq: string | null;
      prior_found: boolean;
      prior: Record<string, unknown> | null;
    }>`
      select e.seq, e.type, e.key, e.record, e.prior_seq, p.seq is not null as prior_found, p.record as prior
      from change_events e
      left join change_events p on p.connector_id = e.connector_id and p.seq = e.prior_seq
      where e.connector_id = ${connectorId} and e.entity = ${entity}
        and e.seq > ${String(range.after)} and e.seq <= ${String(range.through)}
      order by e.seq
      limit ${range.limit}`.execute(this.#db);
    return rows.map((r) => ({
      seq: Number(r.seq),
      type: r.type,
      key: r.key,
      record: r.record,
      prior: r.type === 'record.created' ? null : r.prior_found ? r.prior : undefined,
    }));
  }

  /**
   * Retention: deletes the events appended before `before` (remembering, per connector, the highest number
   * deleted, so older cursors answer 410) and the states of records removed before `before`. Returns the events
   * deleted.
   */
  async purgeBefore(before: Date): Promise<number> {
    let purged = 0;
    for (;;) {
      const result = await sql<{ deleted: string }>`
        with gone as (
          delete from change_events where ctid = any(array(
            select ctid from change_events where changed_at < ${before} limit ${PURGE_BATCH}
          ))
          returning connector_id, seq
        ), marked as (
          update change_feed_heads h set purged_through = greatest(h.purged_through, g.max_seq)
          from (select connector_id, max(seq) as max_seq from gone group by connector_id) g
          where h.connector_id = g.connector_id
          returning 1
        )
        select count(*) as deleted from gone`.execute(this.#db);
      const deleted = Number(result.rows[0]?.deleted ?? 0);
      purged += deleted;
      if (deleted < PURGE_BATCH) break;
    }
    await this.#db
      .deleteFrom('record_states')
      .where('deleted', '=', true)
      .where('version', '<', String(before.getTime()))
      .execute();
    return purged;
  }
}

function changeType(prior: RecordState | undefined, change: AppliedRecordChange): ChangeType | null {
  const live = prior !== undefined && !prior.deleted;
  if (change.contentHash === null) return live ? 'record.deleted' : null;
  if (!live) return 'record.created';
  return prior.content_hash === change.contentHash ? null : 'record.updated';
}
