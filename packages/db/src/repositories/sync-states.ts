import { type Kysely, sql } from 'kysely';
import type { Database, SyncStateRow } from '../schema.ts';

/** One run of one entity of one connector, and the owner token that run holds. */
export interface RunRef {
  readonly connectorId: string;
  readonly entity: string;
  readonly owner: string;
}

export type RunWrite = 'ok' | 'superseded' | 'deleted';

export class SyncStatesRepository {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Creates `pending` rows for entities that have none (new connector, or an entity added to a kind). */
  async ensure(connectorId: string, entities: readonly string[]): Promise<void> {
    if (entities.length === 0) return;
    await this.#db
      .insertInto('sync_states')
      .values(entities.map((entity) => ({ connector_id: connectorId, entity, status: 'pending' as const })))
      .onConflict((oc) => oc.columns(['connector_id', 'entity']).doNothing())
      .execute();
  }

  async list(connectorId: string): Promise<SyncStateRow[]> {
    return this.#db
      .selectFrom('sync_states')
      .selectAll()
      .where('connector_id', '=', connectorId)
      .orderBy('entity')
      .execute();
  }

  /** The states of many connectors in one query, by connector id (an id without states maps to []). */
  async listMany(connectorIds: readonly string[]): Promise<Map<string, SyncStateRow[]>> {
    const byConnector = new Map<string, SyncStateRow[]>(connectorIds.map((id) => [id, []]));
    if (connectorIds.length === 0) return byConnector;
    const rows = await this.#db
      .selectFrom('sync_states')
      .selectAll()
      .where('connector_id', 'in', connectorIds)
      .orderBy('connector_id')
      .orderBy('entity')
      .execute();
    for (const row of rows) byConnector.get(row.connector_id)?.push(row);
    return byConnector;
  }

  /** Per kind and entity, seconds since the oldest last success among its connectors (the metrics' lag). */
  async lagByEntity(): Promise<{ connector_type: string; entity: string; lag_seconds: number }[]> {
    return this.#db
      .selectFrom('sync_states')
      .innerJoin('connectors', 'connectors.id', 'sync_states.connector_id')
      .select([
        'connectors.connector_type',
        'sync_states.entity',
        sql<number>`extract(epoch from now() - min(sync_states.last_success_at))::float8`.as('lag_seconds'),
      ])
      .where('sync_states.last_success_at', 'is not', null)
      .groupBy(['connectors.connector_type', 'sync_states.entity'])
      .execute();
  }

  /** Runs that were in flight when their worker or Redis went away: they have a checkpoint or still say running. */
  async listInterrupted(): Promise<{ connector_id: string; entity: string }[]> {
    return this.#db
      .selectFrom('sync_states')
      .select(['connector_id', 'entity'])
      .where((eb) => eb.or([eb('running', '=', true), eb('checkpoint', 'is not', null)]))
      .execute();
  }

  async get(connectorId: string, entity: string): Promise<SyncStateRow | undefined> {
    return this.#db
      .selectFrom('sync_states')
      .selectAll()
      .where('connector_id', '=', connectorId)
      .where('entity', '=', entity)
      .executeTakeFirst();
  }

  /**
   * Marks a run as started and makes `run.owner` its owner: a run still going elsewhere (a worker that lost its
   * queue lock, e.g. after a Redis restart) is superseded and stops at its next checkpoint. A run that finds a
   * checkpoint of an earlier run resumes it (same run id, which marks the documents it writes).
   */
  async startRun(run: RunRef, runId: string): Promise<SyncStateRow> {
    return this.#db
      .updateTable('sync_states')
      .set((eb) => ({
        running: true,
        run_owner: run.owner,
        last_run_started_at: new Date(),
        // The first pass is `initial_sync` until it finishes; later runs keep the last outcome visible.
        status: eb
          .case()
          .when('last_success_at', 'is', null)
          .then(sql<'initial_sync'>`'initial_sync'`)
          .else(eb.ref('status'))
          .end(),
        run_id: eb.fn.coalesce(
          eb.case().when('checkpoint', 'is not', null).then(eb.ref('run_id')).end(),
          sql<string>`${runId}`,
        ),
        updated_at: new Date(),
      }))
      .where('connector_id', '=', run.connectorId)
      .where('entity', '=', run.entity)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** `superseded`: another run owns the entity now; `deleted`: the connector is gone. */
  async saveCheckpoint(run: RunRef, checkpoint: unknown, recordCountDelta: number): Promise<RunWrite> {
    const result = await this.#owned(run)
      .set((eb) => ({
        checkpoint: JSON.stringify(checkpoint),
        record_count: eb('record_count', '+', recordCountDelta),
        updated_at: new Date(),
      }))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n ? 'ok' : this.#whyNotOwned(run);
  }

  /** `full`: the run was a full pass (it also clears a pending full-pass request). */
  async finishRun(run: RunRef, result: { cursor: unknown; recordCount: number; full?: boolean }): Promise<RunWrite> {
    const now = new Date();
    const updated = await this.#owned(run)
      .set({
        status: 'ready',
        running: false,
        last_success_at: now,
        ...(result.full ? { last_full_sync_at: now, full_requested: false } : {}),
        record_count: result.recordCount,
        cursor: JSON.stringify(result.cursor ?? null),
        checkpoint: null,
        run_id: null,
        run_owner: null,
        error: null,
        updated_at: new Date(),
      })
      .executeTakeFirst();
    return updated.numUpdatedRows > 0n ? 'ok' : this.#whyNotOwned(run);
  }

  /** The index's document count after a write outside a run (read-your-writes); a run's end sets it again. */
  async setRecordCount(connectorId: string, entity: string, recordCount: number): Promise<void> {
    await this.#db
      .updateTable('sync_states')
      .set({ record_count: recordCount, updated_at: new Date() })
      .where('connector_id', '=', connectorId)
      .where('entity', '=', entity)
      .where('running', '=', false)
      .execute();
  }

  /** Asks for a full pass of these entities on their next run (POST .../sync {"mode": "full"}). */
  async requestFullPass(connectorId: string, entities: readonly string[]): Promise<void> {
    if (entities.length === 0) return;
    await this.ensure(connectorId, entities);
    await this.#db
      .updateTable('sync_states')
      .set({ full_requested: true, updated_at: new Date() })
      .where('connector_id', '=', connectorId)
      .where('entity', 'in', entities)
      .execute();
  }

  /** A failed run keeps its checkpoint, so the next attempt resumes rather than starting over. */
  async failRun(run: RunRef, error: string): Promise<void> {
    await this.#owned(run).set({ status: 'failed', running: false, error, updated_at: new Date() }).execute();
  }

  /** Says why an entity does not progress (a quota) without changing its status; its next finished run clears it. */
  async noteError(connectorId: string, entity: string, error: string): Promise<void> {
    await this.#db
      .updateTable('sync_states')
      .set({ error, updated_at: new Date() })
      .where('connector_id', '=', connectorId)
      .where('entity', '=', entity)
      .execute();
  }

  /** A run interrupted by shutdown or a rate limit: not failed, just not running any more. */
  async pauseRun(run: RunRef): Promise<void> {
    await this.#owned(run).set({ running: false, updated_at: new Date() }).execute();
  }

  #owned(run: RunRef) {
    return this.#db
      .updateTable('sync_states')
      .where('connector_id', '=', run.connectorId)
      .where('entity', '=', run.entity)
      .where('run_owner', '=', run.owner);
  }

  async #whyNotOwned(run: RunRef): Promise<RunWrite> {
    return (await this.get(run.connectorId, run.entity)) ? 'superseded' : 'deleted';
  }
}
