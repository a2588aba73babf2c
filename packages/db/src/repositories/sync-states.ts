import { type Kysely, sql } from 'kysely';
import type { Database, SyncStateRow } from '../schema.ts';

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

  /** Marks a run as started. A run that finds a checkpoint of an earlier run resumes it (same run id). */
  async startRun(connectorId: string, entity: string, runId: string): Promise<SyncStateRow> {
    return this.#db
      .updateTable('sync_states')
      .set((eb) => ({
        running: true,
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
      .where('connector_id', '=', connectorId)
      .where('entity', '=', entity)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** False when the state row is gone: the connector was deleted while the run was in flight. */
  async saveCheckpoint(
    connectorId: string,
    entity: string,
    checkpoint: unknown,
    recordCountDelta: number,
  ): Promise<boolean> {
    const result = await this.#db
      .updateTable('sync_states')
      .set((eb) => ({
        checkpoint: JSON.stringify(checkpoint),
        record_count: eb('record_count', '+', recordCountDelta),
        updated_at: new Date(),
      }))
      .where('connector_id', '=', connectorId)
      .where('entity', '=', entity)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async finishRun(
    connectorId: string,
    entity: string,
    result: { cursor: unknown; recordCount: number },
  ): Promise<void> {
    await this.#db
      .updateTable('sync_states')
      .set({
        status: 'ready',
        running: false,
        last_success_at: new Date(),
        record_count: result.recordCount,
        cursor: JSON.stringify(result.cursor ?? null),
        checkpoint: null,
        run_id: null,
        error: null,
        updated_at: new Date(),
      })
      .where('connector_id', '=', connectorId)
      .where('entity', '=', entity)
      .execute();
  }

  /** A failed run keeps its checkpoint, so the next attempt resumes rather than starting over. */
  async failRun(connectorId: string, entity: string, error: string): Promise<void> {
    await this.#db
      .updateTable('sync_states')
      .set({ status: 'failed', running: false, error, updated_at: new Date() })
      .where('connector_id', '=', connectorId)
      .where('entity', '=', entity)
      .execute();
  }

  /** A run interrupted by shutdown: not failed, just not running any more. */
  async pauseRun(connectorId: string, entity: string): Promise<void> {
    await this.#db
      .updateTable('sync_states')
      .set({ running: false, updated_at: new Date() })
      .where('connector_id', '=', connectorId)
      .where('entity', '=', entity)
      .execute();
  }
}
