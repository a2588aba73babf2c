import { type Kysely, type RawBuilder, type Selectable, sql } from 'kysely';
import type { Database, WebhookDeliveriesTable, WebhookEndpointsTable } from '../schema.ts';
import { deleteOwned, updateOwned } from './owned-rows.ts';

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;

export interface NewWebhookEndpoint {
  readonly id: string;
  readonly organization_id: string;
  readonly url: string;
  readonly description: string | null;
  readonly connector_ids: readonly string[] | null;
  readonly entities: readonly string[] | null;
  readonly types: readonly string[] | null;
  readonly secret_ciphertext: string;
}

export type WebhookEndpointChanges = Partial<
  Pick<NewWebhookEndpoint, 'url' | 'description' | 'connector_ids' | 'entities' | 'types'> & { enabled: boolean }
>;

/** An endpoint and a connector it follows whose feed moved past its position, and how many more it may queue. */
export interface MovedPair {
  readonly endpoint_id: string;
  readonly organization_id: string;
  readonly created_at: Date;
  readonly entities: readonly string[] | null;
  readonly types: readonly string[] | null;
  readonly connector_id: string;
  /** Deliveries the endpoint may still queue, and its organization over all its endpoints. */
  readonly room: number;
  readonly organization_room: number;
}

/** A delivery taken for sending, with what sending needs from its endpoint. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly endpoint_id: string;
  readonly seq: string;
  readonly connector_id: string;
  readonly payload: string;
  readonly attempts: number;
  readonly url: string;
  readonly secret_ciphertext: string;
}

export interface DeliveryAttemptOutcome {
  readonly attemptedAt: Date;
  readonly httpStatus: number | null;
  readonly error: string | null;
  readonly latencyMs: number;
}

/** One attempt of a claimed delivery and what follows it. */
export interface DeliveryAttempt {
  readonly delivery: Pick<ClaimedDelivery, 'id' | 'endpoint_id' | 'attempts'>;
  readonly outcome: DeliveryAttemptOutcome;
  readonly next: { delivered: true } | { delivered: false; retryAt: Date | null };
}

type DeliveryStatus = WebhookDeliveryRow['status'];
const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed'];
const MAX_BIGINT = '9223372036854775807';

const json = (value: readonly string[] | null | undefined) => (value == null ? null : JSON.stringify(value));

function insertEndpoint(db: Kysely<Database>, endpoint: NewWebhookEndpoint): Promise<WebhookEndpointRow> {
  return db
    .insertInto('webhook_endpoints')
    .values({
      ...endpoint,
      connector_ids: json(endpoint.connector_ids),
      entities: json(endpoint.entities),
      types: json(endpoint.types),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Endpoints of an organization, and the outbox of their deliveries (docs/changes.md). Every read on behalf of a
 * caller is scoped by organization; the worker's reads are not.
 */
export class WebhookEndpointsRepository {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(endpoint: NewWebhookEndpoint): Promise<WebhookEndpointRow> {
    return insertEndpoint(this.#db, endpoint);
  }

  /**
   * Adds the endpoint unless its organization has `limit` already (then undefined). Creations of one organization
   * take turns on a transaction-scoped advisory lock, so concurrent ones cannot overshoot the limit.
   */
  async insertUnderLimit(endpoint: NewWebhookEndpoint, limit: number): Promise<WebhookEndpointRow | undefined> {
    return this.#db.transaction().execute(async (trx) => {
      const lock = `webhook_endpoints:${endpoint.organization_id}`;
      await sql`select pg_advisory_xact_lock(hashtextextended(${lock}, 0))`.execute(trx);
      const { count } = await trx
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('organization_id', '=', endpoint.organization_id)
        .executeTakeFirstOrThrow();
      return Number(count) >= limit ? undefined : insertEndpoint(trx, endpoint);
    });
  }

  /** The organization's endpoints: where every read on behalf of a caller starts. */
  #ofOrganization(organizationId: string) {
    return this.#db.selectFrom('webhook_endpoints').selectAll().where('organization_id', '=', organizationId);
  }

  async list(organizationId: string): Promise<WebhookEndpointRow[]> {
    return this.#ofOrganization(organizationId).orderBy('created_at').execute();
  }

  async find(organizationId: string, id: string): Promise<WebhookEndpointRow | undefined> {
    return this.#ofOrganization(organizationId).where('id', '=', id).executeTakeFirst();
  }

  async update(organizationId: string, id: string, changes: WebhookEndpointChanges): Promise<WebhookEndpointRow> {
    const { connector_ids, entities, types, enabled, ...rest } = changes;
    return updateOwned(this.#db, 'webhook_endpoints', organizationId, id)
      .set({
        ...rest,
        ...(connector_ids === undefined ? {} : { connector_ids: json(connector_ids) }),
        ...(entities === undefined ? {} : { entities: json(entities) }),
        ...(types === undefined ? {} : { types: json(types) }),
        // Enabled again by hand: the failing streak starts over.
        ...(enabled === undefined ? {} : { enabled, disabled_reason: null, failing_since: null }),
        updated_at: new Date(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  delete(organizationId: string, id: string): Promise<boolean> {
    return deleteOwned(this.#db, 'webhook_endpoints', organizationId, id);
  }

  /**
   * For the worker's fan-out, in one query: each enabled endpoint and followed connector (its organization's,
   * filtered) whose feed head moved past the endpoint's position (or that has no position yet), with how many more
   * deliveries the endpoint and its organization may queue: `backlog` pending per endpoint and
   * `organizationBacklog` per organization, less what is pending now (counted up to `backlog` per endpoint). Pairs whose endpoint is full are left out: the rest of
   * the feed is queued as the backlog drains. Idle pairs cost nothing but this query.
   */
  async movedPairs(bounds: { backlog: number; organizationBacklog: number }): Promise<MovedPair[]> {
    const { rows } = await sql<MovedPair & { room: string; organization_room: string }>`
      with moved as (
        select e.id as endpoint_id, e.organization_id, e.created_at, e.entities, e.types, c.id as connector_id
        from webhook_endpoints e
        join connectors c on c.organization_id = e.organization_id
          and (e.connector_ids is null or e.connector_ids @> jsonb_build_array(c.id))
        join change_feed_heads h on h.connector_id = c.id
        left join webhook_positions p on p.endpoint_id = e.id and p.connector_id = c.id
        where e.enabled and (p.after_seq is null or h.last_seq > p.after_seq)
      ),
      queued as (
        -- Every endpoint of the organizations concerned, moved or not: the organization's bound counts them all.
        select q.id as endpoint_id, q.organization_id, (
          select count(*) from (
            select 1 from webhook_deliveries d
            where d.endpoint_id = q.id and d.status = 'pending'
            limit ${bounds.backlog}
          ) n
        ) as pending
        from webhook_endpoints q
        where q.organization_id in (select organization_id from moved)
      ),
      room as (
        select endpoint_id, ${bounds.backlog} - pending as room,
          ${bounds.organizationBacklog} - sum(pending) over (partition by organization_id) as organization_room
        from queued
      )
      select m.endpoint_id, m.organization_id, m.created_at, m.entities, m.types, m.connector_id, r.room,
        r.organization_room
      from moved m join room r using (endpoint_id)
      where r.room > 0 and r.organization_room > 0
      order by m.endpoint_id, m.connector_id`.execute(this.#db);
    return rows.map((row) => ({ ...row, room: Number(row.room), organization_room: Number(row.organization_room) }));
  }

  /**
   * Turns the connector's feed events after the endpoint's position into deliveries (those its filters accept), and
   * moves the position past them, in one transaction; the position row's lock keeps two workers from doing it at
   * once. A connector seen for the first time starts at the endpoint's creation: earlier events are not sent.
   * `select(after)` reads the events and says which to deliver, with their record reference and body.
   */
  async fanOut(
    endpoint: { readonly id: string; readonly created_at: Date },
    connectorId: string,
    select: (after: number) => Promise<{
      lastSeq: number;
      deliveries: readonly { seq: number; recordRef: string; payload: string }[];
    }>,
  ): Promise<number> {
    return this.#db.transaction().execute(async (trx) => {
      // The endpoint first, as DELETE takes it before its positions and deliveries: the same lock order, no deadlock.
      const alive = await trx
        .selectFrom('webhook_endpoints')
        .select('id')
        .where('id', '=', endpoint.id)
        .forShare()
        .executeTakeFirst();
      if (!alive) return 0;
      const locked = () =>
        trx
          .selectFrom('webhook_positions')
          .select('after_seq')
          .where('endpoint_id', '=', endpoint.id)
          .where('connector_id', '=', connectorId)
          .forUpdate()
          .skipLocked()
          .executeTakeFirst();
      let position = await locked();
      if (!position) {
        // First time for this pair (or another worker holds it: then the insert does nothing and the lock is skipped).
        // The feed's maximum before the endpoint's creation is read only here, not on every round.
        await sql`
          insert into webhook_positions (endpoint_id, connector_id, after_seq)
          select ${endpoint.id}, ${connectorId}, coalesce(max(seq), 0) from change_events
          where connector_id = ${connectorId} and changed_at < ${endpoint.created_at}
          on conflict do nothing`.execute(trx);
        position = await locked();
      }
      if (!position) return 0; // another worker is at it
      const { lastSeq, deliveries } = await select(Number(position.after_seq));
      if (lastSeq <= Number(position.after_seq)) return 0;
      if (deliveries.length > 0) {
        await trx
          .insertInto('webhook_deliveries')
          .values(
            deliveries.map((d) => ({
              endpoint_id: endpoint.id,
              connector_id: connectorId,
              seq: d.seq,
              record_ref: d.recordRef,
              payload: d.payload,
              status: 'pending' as const,
              next_attempt_at: new Date(),
            })),
          )
          // A replay sends an event again: the same delivery (same webhook-id), pending anew.
          .onConflict((oc) =>
            oc.columns(['endpoint_id', 'connector_id', 'seq']).doUpdateSet({
              status: 'pending',
              attempts: 0,
              next_attempt_at: new Date(),
              leased_until: null,
            }),
          )
          .execute();
      }
      await trx
        .updateTable('webhook_positions')
        .set({ after_seq: lastSeq })
        .where('endpoint_id', '=', endpoint.id)
        .where('connector_id', '=', connectorId)
        .execute();
      return deliveries.length;
    });
  }

  /**
   * Takes up to `limit` deliveries due now, leased for `leaseMs`, shared round-robin: first the next due delivery of
   * each organization, then the second, and so on; within an organization, its endpoints in turn. Only the oldest
   * pending delivery of a record is due (per endpoint), so the events of one record go out in order. An endpoint has
   * at most `caps.endpoint` deliveries in flight (leased) across every worker, 1 while it is slow (`slow_until`),
   * and an organization at most `caps.organization`: one tenant's slow or huge backlog takes a bounded share of the
   * senders and never the rest. Claims take turns on a transaction-scoped advisory lock (a claim is one short
   * statement), so the in-flight counts they read are exact; a lease that ran out (its worker died) is in flight no
   * more and its delivery is due again.
   */
  async claimDue(
    limit: number,
    leaseMs: number,
    caps: { endpoint: number; organization: number },
  ): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    return this.#db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtextextended('webhook_deliveries:claim', 0))`.execute(trx);
      const { rows } = await sql<ClaimedDelivery>`
        with flight as (
          select endpoint_id, count(*)::int as n from webhook_deliveries
          where status = 'pending' and leased_until is not null and leased_until > clock_timestamp()
          group by endpoint_id
        ),
        endpoints as (
          select e.id, e.organization_id,
            ${caps.organization} - coalesce(sum(f.n) over (partition by e.organization_id), 0) as organization_free,
            least(
              (case when e.slow_until > clock_timestamp() then 1 else ${caps.endpoint} end) - coalesce(f.n, 0),
              ${caps.organization} - coalesce(sum(f.n) over (partition by e.organization_id), 0)
            ) as free
          from webhook_endpoints e left join flight f on f.endpoint_id = e.id
          where e.enabled
        ),
        candidates as (
          select c.id, e.organization_id, e.organization_free, e.id as endpoint_id, c.turn
          from endpoints e cross join lateral (
            select d.id, row_number() over (order by d.next_attempt_at, d.id) as turn
            from webhook_deliveries d
            where d.endpoint_id = e.id and d.status = 'pending' and d.next_attempt_at <= clock_timestamp()
              and (d.leased_until is null or d.leased_until < clock_timestamp())
              and not exists (
                select 1 from webhook_deliveries o
                where o.endpoint_id = d.endpoint_id and o.connector_id = d.connector_id
                  and o.record_ref = d.record_ref and o.status = 'pending' and o.seq < d.seq
              )
            order by d.next_attempt_at, d.id
            limit greatest(e.free, 0)
          ) c
          where e.free > 0
        ),
        ranked as (
          select id, organization_id, organization_free,
            row_number() over (partition by organization_id order by turn, endpoint_id) as turn
          from candidates
        ),
        picked as (
          select id from ranked
          where turn <= organization_free
          order by turn, md5(organization_id::text || clock_timestamp()::text)
          limit ${limit}
        )
        update webhook_deliveries w set leased_until = clock_timestamp() + ${`${leaseMs} milliseconds`}::interval
        from picked, webhook_endpoints e
        where w.id = picked.id and e.id = w.endpoint_id
        returning w.id, w.endpoint_id, w.seq, w.connector_id, w.payload, w.attempts, e.url, e.secret_ciphertext`.execute(
        trx,
      );
      return rows;
    });
  }

  /**
   * Records a round of attempts in one transaction: each delivered, retried at `retryAt`, or failed (no `retryAt`
   * left). An endpoint's failing streak starts at its first failure and ends with a success; `disableAfterMs` of it
   * disables the endpoint. A success after a failing streak means the endpoint is back: its deliveries waiting for a
   * retry are due at once rather than at the rest of their wait (after an outage of minutes the schedule's waits
   * are minutes too); one record's events still go out in order, as `claimDue` takes the oldest pending first.
   */
  async recordAttempts(
    attempts: readonly DeliveryAttempt[],
    disableAfterMs: number,
    slow: { afterMs: number; forMs: number },
  ): Promise<void> {
    if (attempts.length === 0) return;
    await this.#db.transaction().execute(async (trx) => {
      // The endpoints first, in id order (as DELETE locks its endpoint before its deliveries): no deadlock. A
      // deleted one has nothing left to record.
      const endpoints = await trx
        .selectFrom('webhook_endpoints')
        .select(['id', 'failing_since', 'slow_until'])
        .where('id', 'in', [...new Set(attempts.map((a) => a.delivery.endpoint_id))])
        .orderBy('id')
        .forUpdate()
        .execute();
      const alive = new Map(endpoints.map((e) => [e.id, e.failing_since]));
      const slowUntil = new Map(endpoints.map((e) => [e.id, e.slow_until]));
      const kept = attempts.filter((a) => alive.has(a.delivery.endpoint_id));
      if (kept.length === 0) return;
      await sql`
        insert into webhook_attempts (delivery_id, attempted_at, http_status, error, latency_ms)
        select * from unnest(
          ${kept.map((a) => a.delivery.id)}::bigint[],
          ${kept.map((a) => a.outcome.attemptedAt.toISOString())}::timestamptz[],
          ${kept.map((a) => a.outcome.httpStatus)}::integer[],
          ${kept.map((a) => a.outcome.error)}::text[],
          ${kept.map((a) => a.outcome.latencyMs)}::integer[]
        )`.execute(trx);
      const statusOf = (next: DeliveryAttempt['next']) =>
        next.delivered ? 'delivered' : next.retryAt ? 'pending' : 'failed';
      await sql`
        update webhook_deliveries d set
          attempts = u.attempts, leased_until = null, status = u.status,
          next_attempt_at = coalesce(u.next_attempt_at, d.next_attempt_at)
        from unnest(
          ${kept.map((a) => a.delivery.id)}::bigint[],
          ${kept.map((a) => a.delivery.attempts + 1)}::integer[],
          ${kept.map((a) => statusOf(a.next))}::text[],
          ${kept.map((a) => (!a.next.delivered && a.next.retryAt ? a.next.retryAt.toISOString() : null))}::timestamptz[]
        ) as u(id, attempts, status, next_attempt_at)
        where d.id = u.id`.execute(trx);
      for (const [endpointId, failingSince] of alive) {
        const own = kept.filter((a) => a.delivery.endpoint_id === endpointId);
        // A slow answer (or a timeout) makes the endpoint slow for a while, renewed by each slow one; a quick
        // answer ends it. An endpoint answering quickly all along is not written.
        const wasSlow = own.some((a) => a.outcome.latencyMs >= slow.afterMs);
        if (own.length > 0 && (wasSlow || slowUntil.get(endpointId) != null)) {
          await trx
            .updateTable('webhook_endpoints')
            .set({ slow_until: wasSlow ? new Date(Date.now() + slow.forMs) : null })
            .where('id', '=', endpointId)
            .execute();
        }
        if (own.some((a) => a.next.delivered)) {
          if (failingSince === null) continue;
          await trx
            .updateTable('webhook_endpoints')
            .set({ failing_since: null })
            .where('id', '=', endpointId)
            .execute();
          // Due from when they were queued: the backlog goes out oldest first, and claimDue's order (by due time)
          // does not have one huge tie to sort on every claim.
          await trx
            .updateTable('webhook_deliveries')
            .set({ next_attempt_at: sql`created_at` })
            .where('endpoint_id', '=', endpointId)
            .where('status', '=', 'pending')
            .where('attempts', '>', 0)
            .where('next_attempt_at', '>', sql<Date>`now()`)
            .execute();
          continue;
        }
        if (own.length === 0) continue;
        const times = own.map((a) => a.outcome.attemptedAt.getTime());
        const since = failingSince ?? new Date(Math.min(...times));
        await trx
          .updateTable('webhook_endpoints')
          .set(
            since.getTime() < Math.max(...times) - disableAfterMs
              ? { failing_since: since, enabled: false, disabled_reason: 'every delivery failed for 5 days' }
              : { failing_since: since },
          )
          .where('id', '=', endpointId)
          .execute();
      }
    });
  }

  /** The endpoint's deliveries, newest first, each with its attempts. */
  async deliveries(
    endpointId: string,
    options: { status?: DeliveryStatus | undefined; limit: number },
  ): Promise<(WebhookDeliveryRow & { attempts_log: Selectable<Database['webhook_attempts']>[] })[]> {
    const statuses = options.status ? [options.status] : DELIVERY_STATUSES;
    // Each status's deliveries walked newest first one probe of (endpoint_id, status, id) at a time, at most `limit`
    // of each, merged: a plan that holds with or without statistics (docs/scaling.md, "Postgres without
    // autovacuum"). Read by endpoint and ordered by id, a planner without them walked the whole table backwards for
    // an endpoint with few deliveries, and a status filter read every delivery of the endpoint even with them. Each
    // probe asks for the next key below the previous one in the index's own order (a row comparison), which only
    // that index can answer with one row; `order by id` with equalities let the planner walk the primary key and
    // filter, the whole table for a status the endpoint has none of. A probe that lands on another endpoint or
    // status ends that status's walk.
    const below = (endpoint: RawBuilder<unknown>, status: RawBuilder<unknown>, id: RawBuilder<unknown>) => sql`
      select * from webhook_deliveries where (endpoint_id, status, id) < (${endpoint}, ${status}, ${id})
      order by endpoint_id desc, status desc, id desc
      limit 1`;
    const { rows } = await sql<WebhookDeliveryRow>`
      with recursive walk as (
        select d.*, 1 as n from unnest(${statuses}::text[]) as s(status)
        cross join lateral (${below(sql`${endpointId}::text`, sql`s.status`, sql`${MAX_BIGINT}::bigint`)}) as d
        where d.endpoint_id = ${endpointId} and d.status = s.status
        union all
        select d.*, w.n + 1 from walk w
        cross join lateral (${below(sql`w.endpoint_id`, sql`w.status`, sql`w.id`)}) as d
        where w.n < ${options.limit} and d.endpoint_id = w.endpoint_id and d.status = w.status
      )
      select id, endpoint_id, connector_id, seq, record_ref, payload, status, attempts, next_attempt_at, leased_until,
        created_at
      from walk order by id desc limit ${options.limit}`.execute(this.#db);
    if (rows.length === 0) return [];
    const attempts = await this.#db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where(
        'delivery_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('attempted_at')
      .execute();
    return rows.map((row) => ({ ...row, attempts_log: attempts.filter((a) => a.delivery_id === row.id) }));
  }

  /** Retention: deletes finished deliveries (and their attempts) created before `before`; returns how many. */
  async purgeBefore(before: Date): Promise<number> {
    const result = await this.#db
      .deleteFrom('webhook_deliveries')
      .where('status', '!=', 'pending')
      .where('created_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Replay: the endpoint's position for these connectors goes back to `after`; the worker sends from there again. */
  async rewind(endpointId: string, connectorIds: readonly string[], after: number): Promise<void> {
    for (const connectorId of connectorIds) {
      await this.#db
        .insertInto('webhook_positions')
        .values({ endpoint_id: endpointId, connector_id: connectorId, after_seq: after })
        .onConflict((oc) => oc.columns(['endpoint_id', 'connector_id']).doUpdateSet({ after_seq: after }))
        .execute();
    }
  }
}
