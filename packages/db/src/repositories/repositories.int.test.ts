import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, ensureDatabaseExists } from '../database.ts';
import { migrateToLatest } from '../migrate.ts';
import type { Database, NewAuditEntry } from '../schema.ts';
import { AuditWriter } from './audit-writer.ts';
import { ChangeFeedRepository } from './change-feed.ts';
import { ClientsRepository } from './clients.ts';
import { ConnectorsRepository } from './connectors.ts';
import { TableMaintenance } from './maintenance.ts';
import { SyncStatesRepository } from './sync-states.ts';
import { WebhookEndpointsRepository } from './webhook-endpoints.ts';

/** A database of its own on the shared Postgres (DATABASE_URL's server), dropped afterwards. */
const serverUrl = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/conduit_test');
const name = `conduit_db_unit_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const databaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();

let db: Kysely<Database>;
let connectors: ConnectorsRepository;
let syncStates: SyncStatesRepository;

beforeAll(async () => {
  await ensureDatabaseExists(databaseUrl);
  db = createDatabase(databaseUrl, 2);
  await migrateToLatest(db);
  const clients = new ClientsRepository(db);
  await clients.upsertOrganization('org-a', 'A');
  await clients.upsertOrganization('org-b', 'B');
  connectors = new ConnectorsRepository(db);
  syncStates = new SyncStatesRepository(db);
});

afterAll(async () => {
  await db?.destroy();
  const admin = new pg.Client({
    connectionString: Object.assign(new URL(serverUrl), { pathname: '/postgres' }).toString(),
  });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.end();
});

async function newConnector(organizationId = 'org-a') {
  return connectors.insert({
    id: randomUUID(),
    organization_id: organizationId,
    connector_type: 'Orb',
    customer_name: `customer-${randomUUID()}`,
    name: 'Orb',
    credentials_ciphertext: 'ciphertext',
    config: JSON.stringify({}),
    replication_config: JSON.stringify({ start_date: '2024-01-01T00:00:00Z' }),
  });
}

describe('ConnectorsRepository', () => {
  it('scopes every read by organization: another organization does not see the connector', async () => {
    const row = await newConnector('org-a');
    expect((await connectors.find('org-a', row.id))?.id).toBe(row.id);
    expect(await connectors.find('org-b', row.id)).toBeUndefined();
    expect((await connectors.listByOrganization('org-b')).map((r) => r.id)).not.toContain(row.id);
    expect((await connectors.findForSync(row.id))?.id).toBe(row.id);
  });

  it('finds a connector by its identity, and the identity is unique per organization', async () => {
    const row = await newConnector('org-a');
    const identity = { customer_name: row.customer_name, connector_type: 'Orb', name: 'Orb' };
    expect((await connectors.findByIdentity('org-a', identity))?.id).toBe(row.id);
    expect(await connectors.findByIdentity('org-b', identity)).toBeUndefined();
    await expect(
      connectors.insert({ ...row, id: randomUUID(), config: '{}', replication_config: '{}' }),
    ).rejects.toThrow();
  });

  it("changes only the organization's own connector: another organization's update, secret or delete finds nothing", async () => {
    const row = await newConnector('org-a');
    expect(await connectors.update('org-b', row.id, { name: 'taken over' })).toBeUndefined();
    expect(await connectors.update('org-b', row.id, { webhook_secret_ciphertext: 'secret' })).toBeUndefined();
    expect(await connectors.delete('org-b', row.id)).toBe(false);
    const unchanged = await connectors.find('org-a', row.id);
    expect(unchanged?.name).toBe('Orb');
    expect(unchanged?.webhook_secret_ciphertext).toBeNull();
    expect((await connectors.update('org-a', row.id, { name: 'renamed' }))?.name).toBe('renamed');
  });

  it('changes the name, the credentials and the webhook secret in one update, and null removes the secret', async () => {
    const row = await newConnector('org-a');
    const changed = await connectors.update('org-a', row.id, {
      name: 'renamed',
      credentials_ciphertext: 'new-credentials',
      webhook_secret_ciphertext: 'secret-ciphertext',
    });
    expect(changed).toMatchObject({
      name: 'renamed',
      credentials_ciphertext: 'new-credentials',
      webhook_secret_ciphertext: 'secret-ciphertext',
    });
    const removed = await connectors.update('org-a', row.id, { webhook_secret_ciphertext: null });
    expect(removed).toMatchObject({ name: 'renamed', webhook_secret_ciphertext: null });
    expect((await connectors.find('org-a', row.id))?.webhook_secret_ciphertext).toBeNull();
  });
});

describe('SyncStatesRepository', () => {
  it('lists the states of many connectors in one call, by connector, with [] for one without states', async () => {
    const [a, b, bare] = [await newConnector(), await newConnector(), await newConnector()];
    await syncStates.ensure(a.id, ['invoices', 'customers']);
    await syncStates.ensure(b.id, ['customers']);
    const states = await syncStates.listMany([a.id, b.id, bare.id]);
    expect(states.get(a.id)?.map((s) => s.entity)).toEqual(['customers', 'invoices']);
    expect(states.get(b.id)?.map((s) => s.entity)).toEqual(['customers']);
    expect(states.get(bare.id)).toEqual([]);
    expect(states.get(a.id)).toEqual(await syncStates.list(a.id));
    expect((await syncStates.listMany([])).size).toBe(0);
  });

  it('starts a run as initial_sync, checkpoints it, and finishes it ready with the cursor', async () => {
    const row = await newConnector();
    await syncStates.ensure(row.id, ['customers']);
    const run = { connectorId: row.id, entity: 'customers', owner: randomUUID() };
    const started = await syncStates.startRun(run, 'run-1');
    expect(started).toMatchObject({ status: 'initial_sync', running: true, run_id: 'run-1' });
    expect(await syncStates.saveCheckpoint(run, { page: 2 }, 10)).toBe('ok');
    expect(await syncStates.finishRun(run, { cursor: '2024-02-01', recordCount: 10 })).toBe('ok');
    expect(await syncStates.get(row.id, 'customers')).toMatchObject({
      status: 'ready',
      running: false,
      record_count: 10,
      checkpoint: null,
    });
  });

  it('a later run supersedes an earlier one: the earlier owner can no longer write', async () => {
    const row = await newConnector();
    await syncStates.ensure(row.id, ['plans']);
    const first = { connectorId: row.id, entity: 'plans', owner: randomUUID() };
    const second = { ...first, owner: randomUUID() };
    await syncStates.startRun(first, 'run-a');
    await syncStates.startRun(second, 'run-b');
    expect(await syncStates.saveCheckpoint(first, { page: 1 }, 1)).toBe('superseded');
    expect(await syncStates.saveCheckpoint(second, { page: 1 }, 1)).toBe('ok');
  });

  it('a run resumes the checkpoint of an interrupted one, with its run id', async () => {
    const row = await newConnector();
    await syncStates.ensure(row.id, ['invoices']);
    const first = { connectorId: row.id, entity: 'invoices', owner: randomUUID() };
    await syncStates.startRun(first, 'run-x');
    await syncStates.saveCheckpoint(first, { page: 3 }, 5);
    await syncStates.pauseRun(first);
    expect(await syncStates.listInterrupted()).toContainEqual({ connector_id: row.id, entity: 'invoices' });
    const resumed = await syncStates.startRun({ ...first, owner: randomUUID() }, 'run-y');
    expect(resumed.run_id).toBe('run-x');
    expect(resumed.checkpoint).toEqual({ page: 3 });
  });

  it("reports 'deleted' to a run whose connector was deleted", async () => {
    const row = await newConnector();
    await syncStates.ensure(row.id, ['subscriptions']);
    const run = { connectorId: row.id, entity: 'subscriptions', owner: randomUUID() };
    await syncStates.startRun(run, 'run-d');
    await db.deleteFrom('connectors').where('id', '=', row.id).execute();
    expect(await syncStates.saveCheckpoint(run, { page: 1 }, 1)).toBe('deleted');
  });
});

describe('ChangeFeedRepository', () => {
  const upsert = (key: string, version: number, content: string) => ({
    key,
    version,
    contentHash: content,
    recordJson: JSON.stringify({ id: key, content }),
  });
  const removal = (key: string, version: number) => ({ key, version, contentHash: null, recordJson: null });

  it('tells created, updated and unchanged apart, skips writes older than the last applied, and numbers in order', async () => {
    const feed = new ChangeFeedRepository(db);
    const { id } = await newConnector();
    expect(await feed.append(id, 'customers', 'sync', [upsert('a', 10, 'h1'), upsert('b', 10, 'h1')])).toBe(2);
    expect(await feed.append(id, 'customers', 'webhook', [upsert('a', 20, 'h1')])).toBe(0); // unchanged
    expect(await feed.append(id, 'customers', 'webhook', [upsert('a', 30, 'h2')])).toBe(1);
    expect(await feed.append(id, 'customers', 'sync', [upsert('a', 25, 'h-old')])).toBe(0); // older than 30
    expect(await feed.append(id, 'customers', 'webhook', [removal('b', 40), removal('b', 41), removal('c', 40)])).toBe(
      1,
    );
    expect(await feed.append(id, 'customers', 'sync', [upsert('b', 50, 'h1')])).toBe(1); // back after removal
    const events = await feed.read(id, { after: 0, limit: 100 });
    expect(events.map((e) => [e.seq, e.type, e.key, e.source])).toEqual([
      [1, 'record.created', 'a', 'sync'],
      [2, 'record.created', 'b', 'sync'],
      [3, 'record.updated', 'a', 'webhook'],
      [4, 'record.deleted', 'b', 'webhook'],
      [5, 'record.created', 'b', 'sync'],
    ]);
    expect(events[2]!.record).toEqual({ id: 'a', content: 'h2' });
    expect(events[3]!.record).toBeNull();
    expect(await feed.head(id)).toEqual({ lastSeq: 5, purgedThrough: 0 });
  });

  it("gives back each event's key and record content whatever characters they hold", async () => {
    const feed = new ChangeFeedRepository(db);
    const { id } = await newConnector();
    const record = {
      id: 'q"\\',
      note: 'tab\t, quote ", newline \n, é 😀',
      nul: 'before\u0000after',
      n: 1.5e-7,
      nested: [{ a: null }],
    };
    const change = { key: 'q"\\', version: 1, contentHash: 'h', recordJson: JSON.stringify(record) };
    expect(await feed.append(id, 'customers', 'sync', [change, { ...change, key: 'k,{}', version: 2 }])).toBe(2);
    const events = await feed.read(id, { after: 0, limit: 10 });
    expect(events.map((e) => [e.seq, e.key])).toEqual([
      [1, 'q"\\'],
      [2, 'k,{}'],
    ]);
    expect(events[0]!.record).toEqual(record);
  });

  it('concurrent appends to one connector get consecutive numbers, each batch in its own order', async () => {
    const feed = new ChangeFeedRepository(db);
    const { id } = await newConnector();
    await Promise.all(
      Array.from({ length: 20 }, (_, batch) =>
        feed.append(id, 'customers', 'sync', [upsert(`k${batch}-1`, 1, 'x'), upsert(`k${batch}-2`, 1, 'x')]),
      ),
    );
    const events = await feed.read(id, { after: 0, limit: 100 });
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    for (let i = 0; i < 40; i += 2) expect(events[i + 1]!.key).toBe(events[i]!.key.replace(/-1$/, '-2'));
  });

  it('a connector deleted while an append waits for its head: both finish, no deadlock', async () => {
    const feed = new ChangeFeedRepository(db);
    const { id } = await newConnector();
    expect(await feed.append(id, 'customers', 'sync', [upsert('a', 1, 'h1')])).toBe(1);
    const holder = new pg.Client({ connectionString: databaseUrl });
    const deleter = new pg.Client({ connectionString: databaseUrl });
    await Promise.all([holder.connect(), deleter.connect()]);
    const lockWaiters = async () => {
      const { rows } = await holder.query<{ n: string }>(
        "select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
      );
      return Number(rows[0]!.n);
    };
    const untilWaiters = async (n: number) => {
      while ((await lockWaiters()) < n) await new Promise((r) => setTimeout(r, 20));
    };
    try {
      // Another append holds the head: this one waits for it, then a delete of the connector comes in behind.
      await holder.query('begin');
      await holder.query('select 1 from change_feed_heads where connector_id = $1 for update', [id]);
      const appending = feed.append(id, 'customers', 'sync', [upsert('b', 2, 'h1')]);
      await untilWaiters(1);
      const deleting = deleter.query('delete from connectors where id = $1', [id]);
      await untilWaiters(2);
      await holder.query('commit');
      // Without one lock order, the append (holding the head, its insert checking the connector) and the delete
      // (holding the connector, its cascade wanting the head) wait on each other until Postgres aborts one.
      const [appended, deleted] = await Promise.all([appending, deleting]);
      expect(appended).toBe(1);
      expect(deleted.rowCount).toBe(1);
      expect(await feed.read(id, { after: 0, limit: 10 })).toEqual([]);
    } finally {
      await Promise.all([holder.end(), deleter.end()]);
    }
  });

  it("an append looks up its own keys' states only, however many the entity holds, with no statistics", async () => {
    // One connection, so the statistics it reads back are its own appends', flushed on demand.
    const single = createDatabase(databaseUrl, 1);
    try {
      const feed = new ChangeFeedRepository(single);
      const { id } = await newConnector();
      await sql`
        insert into record_states (connector_id, entity, key, version, content_hash, deleted)
        select ${id}, 'customers', 'k' || g, 1, 'h', false from generate_series(1, 20000) g`.execute(single);
      const indexEntriesRead = async () => {
        await sql`select pg_stat_force_next_flush()`.execute(single);
        const { rows } = await sql<{ n: string }>`
          select idx_tup_read as n from pg_stat_user_indexes where indexrelname = 'record_states_pkey'`.execute(single);
        return Number(rows[0]!.n);
      };
      const before = await indexEntriesRead();
      expect(await feed.append(id, 'customers', 'sync', [upsert('k1', 2, 'h'), upsert('new', 2, 'h')])).toBe(1);
      expect((await indexEntriesRead()) - before).toBeLessThan(100);
    } finally {
      await single.destroy();
    }
  });

  it('retention deletes old events and remembers how far, per connector', async () => {
    const feed = new ChangeFeedRepository(db);
    const { id } = await newConnector();
    await feed.append(id, 'customers', 'sync', [upsert('a', 1, 'x'), upsert('b', 1, 'x')]);
    await feed.append(id, 'customers', 'sync', [removal('a', 2)]);
    await feed.purgeBefore(new Date(Date.now() + 1000));
    expect(await feed.read(id, { after: 0, limit: 10 })).toEqual([]);
    expect(await feed.head(id)).toEqual({ lastSeq: 3, purgedThrough: 3 });
    // A connector deleted meanwhile: its appends make nothing (and fail nothing).
    await connectors.delete('org-a', id);
    expect(await feed.append(id, 'customers', 'sync', [upsert('c', 3, 'x')])).toBe(0);
  });
});

describe('WebhookEndpointsRepository', () => {
  it("reads and changes only the organization's own endpoints", async () => {
    const endpoints = new WebhookEndpointsRepository(db);
    const endpoint = await endpoints.insert({
      id: `we_${randomUUID().replaceAll('-', '')}`,
      organization_id: 'org-a',
      url: 'https://example.com/hooks',
      description: null,
      connector_ids: null,
      entities: ['calls'],
      types: null,
      secret_ciphertext: 'ciphertext',
    });
    expect(await endpoints.find('org-b', endpoint.id)).toBeUndefined();
    expect((await endpoints.list('org-b')).map((e) => e.id)).not.toContain(endpoint.id);
    await expect(endpoints.update('org-b', endpoint.id, { url: 'https://attacker.example' })).rejects.toThrow();
    const updated = await endpoints.update('org-a', endpoint.id, { url: 'https://example.com/v2', entities: null });
    expect([updated.url, updated.entities]).toEqual(['https://example.com/v2', null]);
    expect((await endpoints.list('org-a')).map((e) => e.id)).toContain(endpoint.id);
  });
  it("reads a page of an endpoint's deliveries, of any status or one, from the index, however many the table holds, with no statistics", async () => {
    // One connection, so the statistics it reads back are its own reads', flushed on demand.
    const single = createDatabase(databaseUrl, 1);
    try {
      const endpoints = new WebhookEndpointsRepository(single);
      const { id: connectorId } = await newConnector();
      const newEndpoint = () =>
        endpoints.insert({
          id: `we_${randomUUID().replaceAll('-', '')}`,
          organization_id: 'org-a',
          url: 'https://example.com/hooks',
          description: null,
          connector_ids: null,
          entities: null,
          types: null,
          secret_ciphertext: 'ciphertext',
        });
      const [busy, quiet] = [await newEndpoint(), await newEndpoint()];
      const seed = (endpointId: string, from: number, to: number, status: string) =>
        sql`
          insert into webhook_deliveries (endpoint_id, connector_id, seq, record_ref, payload, status, next_attempt_at)
          select ${endpointId}, ${connectorId}, g, 'customers/k' || g, '{}', ${status}, now()
          from generate_series(${from}::int, ${to}::int) g`.execute(single);
      await seed(quiet.id, 1, 3, 'delivered');
      await seed(busy.id, 1, 20000, 'delivered');
      await seed(quiet.id, 4, 4, 'failed');
      // Rows read by sequential scans and index entries read by index scans, of every index of the table.
      const rowsRead = async () => {
        await sql`select pg_stat_force_next_flush()`.execute(single);
        const { rows } = await sql<{ n: string }>`
          select (select seq_tup_read from pg_stat_user_tables where relname = 'webhook_deliveries')
            + (select sum(idx_tup_read) from pg_stat_user_indexes where relname = 'webhook_deliveries') as n`.execute(
          single,
        );
        return Number(rows[0]!.n);
      };
      const read = async (endpointId: string, status?: 'failed') => {
        const before = await rowsRead();
        const page = await endpoints.deliveries(endpointId, { status, limit: 10 });
        return { seqs: page.map((d) => Number(d.seq)), read: (await rowsRead()) - before };
      };
      // Without statistics, then with them (a status the table holds plenty of, that this endpoint has none of).
      for (const analyzed of [false, true]) {
        if (analyzed) await sql`analyze webhook_deliveries`.execute(single);
        const quietPage = await read(quiet.id);
        expect(quietPage.seqs).toEqual([4, 3, 2, 1]);
        expect(quietPage.read).toBeLessThan(100);
        const busyPage = await read(busy.id);
        expect(busyPage.seqs).toEqual([20000, 19999, 19998, 19997, 19996, 19995, 19994, 19993, 19992, 19991]);
        expect(busyPage.read).toBeLessThan(100);
        const failed = await read(busy.id, 'failed');
        expect(failed.seqs).toEqual([]);
        expect(failed.read).toBeLessThan(100);
        expect((await read(quiet.id, 'failed')).seqs).toEqual([4]);
      }
    } finally {
      await single.destroy();
    }
  });
});

describe('AuditWriter', () => {
  type Entry = NewAuditEntry & { params: string | null; request_id: string };
  const entry = (i: number, overrides: Partial<Omit<NewAuditEntry, 'request_id'>> = {}): Entry => ({
    at: null,
    organization_id: 'org-a',
    client_id: 'client-a',
    connector_id: `connector-${i}`,
    source: 'api',
    action: 'execute.list',
    entity: 'customers',
    params: JSON.stringify({ limit: i, quote: 'a "b" \\ c', nested: { list: [1, null, 'é'] } }),
    idempotency_key: null,
    status: 200,
    error_code: null,
    upstream_status: 200,
    latency_ms: 1.25,
    request_id: `req-${randomUUID()}`,
    ...overrides,
  });
  const stored = async (requestIds: string[]) => {
    const rows = await db
      .selectFrom('audit_entries')
      .selectAll()
      .where('request_id', 'in', requestIds)
      .orderBy('id')
      .execute();
    return rows.map(({ id: _, at: __, ...row }) => row);
  };

  it('inserts one row and a batch with every column as given, a batch in the order given', async () => {
    const writer = new AuditWriter(databaseUrl);
    try {
      const at = new Date('2026-01-02T03:04:05.678Z');
      const alone = entry(0, { at, error_code: 'upstream_error', upstream_status: null, status: 502 });
      const batchAt = new Date('2026-01-02T03:04:06.001Z');
      const batch = [
        entry(1),
        entry(2, { params: null, client_id: null, entity: null, latency_ms: 0.001 }),
        entry(3, { at: batchAt }),
      ];
      await writer.insertEntries([alone], false);
      await writer.insertEntries(batch, false);
      const expected = [alone, ...batch].map(({ at: _, params, ...row }) => ({
        ...row,
        params: params === null ? null : JSON.parse(params),
      }));
      expect(await stored([alone, ...batch].map((r) => r.request_id))).toEqual(expected);
      const ats = await db
        .selectFrom('audit_entries')
        .select('at')
        .where('request_id', 'in', [alone.request_id, batch[2]!.request_id])
        .orderBy('id')
        .execute();
      expect(ats.map((r) => r.at)).toEqual([at, batchAt]);
    } finally {
      await writer.close();
    }
  });

  it('returns a batch’s ids in the order given; a row without `at` gets the database’s now', async () => {
    const writer = new AuditWriter(databaseUrl);
    try {
      const before = new Date(Date.now() - 60_000);
      const batch = [entry(1), entry(2), entry(3)];
      const ids = await writer.insertEntries(batch, true);
      const rows = await db
        .selectFrom('audit_entries')
        .select(['id', 'request_id', 'at'])
        .where(
          'request_id',
          'in',
          batch.map((r) => r.request_id),
        )
        .orderBy('id')
        .execute();
      expect(ids).toEqual(rows.map((r) => String(r.id)));
      expect(rows.map((r) => r.request_id)).toEqual(batch.map((r) => r.request_id));
      for (const row of rows) expect(row.at.getTime()).toBeGreaterThan(before.getTime());
    } finally {
      await writer.close();
    }
  });
});

describe('TableMaintenance', () => {
  it('hands the space of deleted rows back for reuse, and gives the planner statistics, where autovacuum does not run', async () => {
    const maintenance = new TableMaintenance(db);
    const { rows: settings } = await sql<{ off: boolean }>`
      select not current_setting('autovacuum')::boolean as off`.execute(db);
    if (!settings[0]!.off) {
      // Autovacuum does this itself: nothing to do, and no lock taken against it.
      expect(await maintenance.vacuumUnattended()).toBe(0);
      return;
    }
    const { id } = await newConnector();
    const append = () =>
      sql`
        insert into change_events (connector_id, seq, type, entity, key, record, source)
        select ${id}, g, 'record.created', 'customers', 'k' || g, '{"id": 1}', 'sync'
        from generate_series(1, 20000) g`.execute(db);
    const size = async () => {
      const { rows } = await sql<{ bytes: string }>`select pg_relation_size('change_events') as bytes`.execute(db);
      return Number(rows[0]!.bytes);
    };
    await append();
    const full = await size();
    await sql`delete from change_events where connector_id = ${id}`.execute(db);
    expect(await maintenance.vacuumUnattended()).toBeGreaterThan(0);
    // As many events again fit in the space the deleted ones left (without a vacuum they take as much again).
    await append();
    expect(await size()).toBeLessThan(full * 1.2);
    // Analyzed: the planner's row count is the table's (-1 until a vacuum or analyze, without autovacuum, forever).
    const { rows: counted } = await sql<{ reltuples: number }>`
      select reltuples from pg_class where oid = 'change_events'::regclass`.execute(db);
    expect(counted[0]!.reltuples).toBeGreaterThanOrEqual(0);
  });
});
