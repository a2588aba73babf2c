import { type Kysely, sql, type UpdateObject } from 'kysely';
import type { Database } from '../schema.ts';

export interface IdempotencyRef {
  readonly organizationId: string;
  readonly connectorId: string;
  readonly key: string;
  /** The call that owns the key now: every write below is refused to anyone else. */
  readonly owner: string;
}

/** What a call finds when it presents a key. */
export type IdempotencyClaim =
  /** This call runs the request; `sentParams` is what a previous owner that died had prepared to send. */
  | { readonly type: 'owner'; readonly sentParams: unknown }
  /** The first call with this key and request was answered: replay its answer. */
  | { readonly type: 'completed'; readonly status: number; readonly body: string }
  /** The first call is still running (its owner's lease has `retryAfterSeconds` to go). */
  | { readonly type: 'in_progress'; readonly retryAfterSeconds: number }
  /** The key was used for another request. */
  | { readonly type: 'mismatch' };

export interface ClaimRequest extends IdempotencyRef {
  readonly fingerprint: string;
  readonly ttlMs: number;
  readonly leaseMs: number;
}

/**
 * Idempotency keys in Postgres: the database's clock and its unique key decide who runs a request, so racing
 * duplicates on any number of API instances have one owner. An owner holds a lease it renews while it runs; a
 * lease that ran out means the owner died (a crash, a kill) and the next call with the key takes over.
 */
export class IdempotencyKeysRepository {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async claim(request: ClaimRequest): Promise<IdempotencyClaim> {
    for (let round = 0; round < 3; round++) {
      // A new key, or one whose 24 h ran out, is this call's.
      const inserted = await sql<{ key: string }>`
        insert into idempotency_keys
          (organization_id, connector_id, key, fingerprint, state, owner, locked_until, expires_at)
        values (${request.organizationId}, ${request.connectorId}, ${request.key}, ${request.fingerprint},
          'in_progress', ${request.owner}, now() + ${interval(request.leaseMs)}, now() + ${interval(request.ttlMs)})
        on conflict (organization_id, connector_id, key) do update set
          fingerprint = excluded.fingerprint, state = 'in_progress', owner = excluded.owner, sent_params = null,
          response_status = null, response_body = null, locked_until = excluded.locked_until,
          created_at = now(), expires_at = excluded.expires_at
        where idempotency_keys.expires_at <= now()
        returning key`.execute(this.#db);
      if (inserted.rows.length > 0) return { type: 'owner', sentParams: null };

      const row = await sql<{
        fingerprint: string;
        state: 'in_progress' | 'completed';
        response_status: number | null;
        response_body: string | null;
        wait_ms: number;
      }>`
        select fingerprint, state, response_status, response_body,
          greatest(0, extract(epoch from (locked_until - now())) * 1000)::float8 as wait_ms
        from idempotency_keys
        where organization_id = ${request.organizationId} and connector_id = ${request.connectorId}
          and key = ${request.key} and expires_at > now()`.execute(this.#db);
      const existing = row.rows[0];
      if (!existing) continue; // expired or released between the two statements: try the insert again
      if (existing.fingerprint !== request.fingerprint) return { type: 'mismatch' };
      if (existing.state === 'completed') {
        return { type: 'completed', status: existing.response_status ?? 200, body: existing.response_body ?? '' };
      }
      if (existing.wait_ms > 0) {
        return { type: 'in_progress', retryAfterSeconds: Math.max(1, Math.ceil(existing.wait_ms / 1000)) };
      }
      // The owner's lease ran out: it died. Take over, with what it had prepared to send.
      const taken = await this.#db
        .updateTable('idempotency_keys')
        .set({ owner: request.owner, locked_until: sql<Date>`now() + ${interval(request.leaseMs)}` })
        .where('organization_id', '=', request.organizationId)
        .where('connector_id', '=', request.connectorId)
        .where('key', '=', request.key)
        .where('state', '=', 'in_progress')
        .where('locked_until', '<=', sql<Date>`now()`)
        .returning('sent_params')
        .executeTakeFirst();
      if (taken) return { type: 'owner', sentParams: taken.sent_params ?? null };
    }
    // Three rounds lost to other calls: the key is busy right now.
    return { type: 'in_progress', retryAfterSeconds: 1 };
  }

  /** What this owner is about to send upstream (a vendor-side id): kept before the call, so a successor reuses it. */
  async recordSentParams(ref: IdempotencyRef, params: unknown): Promise<boolean> {
    return this.#ownRow(ref, { sent_params: JSON.stringify(params) });
  }

  /** Renews the owner's lease while its call runs. */
  async renew(ref: IdempotencyRef, leaseMs: number): Promise<boolean> {
    return this.#ownRow(ref, { locked_until: sql<Date>`now() + ${interval(leaseMs)}` });
  }

  async complete(ref: IdempotencyRef, answer: { status: number; body: string }): Promise<boolean> {
    return this.#ownRow(ref, {
      state: 'completed',
      response_status: answer.status,
      response_body: answer.body,
      locked_until: sql<Date>`now()`,
    });
  }

  /** Frees the key (the call failed in a way worth retrying): the next call with it runs the request again. */
  async release(ref: IdempotencyRef): Promise<void> {
    await this.#db
      .deleteFrom('idempotency_keys')
      .where((eb) => eb.and(ownedBy(ref)))
      .execute();
  }

  /** Removes keys past their time; returns how many. */
  async purgeExpired(): Promise<number> {
    const result = await this.#db
      .deleteFrom('idempotency_keys')
      .where('expires_at', '<=', sql<Date>`now()`)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async #ownRow(ref: IdempotencyRef, changes: UpdateObject<Database, 'idempotency_keys'>): Promise<boolean> {
    const result = await this.#db
      .updateTable('idempotency_keys')
      .set(changes)
      .where((eb) => eb.and(ownedBy(ref)))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}

/** The row of `ref`'s key while `ref`'s call still owns it (not completed, not taken over). */
function ownedBy(ref: IdempotencyRef) {
  return {
    organization_id: ref.organizationId,
    connector_id: ref.connectorId,
    key: ref.key,
    owner: ref.owner,
    state: 'in_progress' as const,
  };
}

function interval(ms: number) {
  return sql`${`${Math.round(ms)} milliseconds`}::interval`;
}
