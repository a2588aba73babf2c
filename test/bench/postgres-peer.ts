/**
 * The peer baseline of the search benchmark: the same records kept the way Nango keeps synced records (one row per
 * record: connection, model, external id and the record as a jsonb column; Nango's `SyncDataRecord` is
 * {external_id, json, data_hash, nango_connection_id, model}), indexed generously so Postgres gets a fair run:
 * GIN jsonb_path_ops for equality/containment, pg_trgm GIN for `like`/`fuzzy`, a full-text GIN for `keyword`,
 * and a btree on the invoice date for ranges and sorting.
 */
import pg from 'pg';
import { dropDatabase, onAdminDatabase, withDatabaseName } from '../harness/databases.ts';

export const PEER_TABLE = 'records';
const LOAD_BATCH = 2000;

export interface PeerQuery {
  readonly text: string;
  readonly values: readonly unknown[];
}

/** Opens (creating if needed) the peer database next to `databaseUrl`. */
export async function openPeer(databaseUrl: string, database: string, poolSize: number): Promise<pg.Pool> {
  await onAdminDatabase(databaseUrl, async (admin) => {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [database]);
    if (exists.rowCount === 0) await admin.query(`create database "${database}"`);
  });
  return new pg.Pool({ connectionString: withDatabaseName(databaseUrl, database), max: poolSize });
}

export async function dropPeer(databaseUrl: string, database: string): Promise<void> {
  await dropDatabase(withDatabaseName(databaseUrl, database));
}

/** Loads `count` records (skipped when the table already holds exactly that many), then builds the indexes. */
export async function loadPeer(
  pool: pg.Pool,
  connectionId: string,
  count: number,
  record: (i: number) => Record<string, unknown>,
): Promise<void> {
  await pool.query('create extension if not exists pg_trgm');
  await pool.query(
    `create table if not exists ${PEER_TABLE} (connection_id text not null, model text not null,
       external_id text not null, json jsonb not null, primary key (connection_id, model, external_id))`,
  );
  const present = Number((await pool.query(`select count(*) as n from ${PEER_TABLE}`)).rows[0].n);
  if (present === count) {
    console.log(`postgres peer already holds ${count} records: load skipped`);
    return;
  }
  await pool.query(`truncate ${PEER_TABLE}`);
  const started = performance.now();
  for (let from = 0; from < count; from += LOAD_BATCH) {
    const ids: string[] = [];
    const docs: string[] = [];
    for (let i = from; i < Math.min(count, from + LOAD_BATCH); i++) {
      const r = record(i);
      ids.push(String(r.id));
      docs.push(JSON.stringify(r));
    }
    await pool.query(`insert into ${PEER_TABLE} select $1, 'invoices', * from unnest($2::text[], $3::jsonb[])`, [
      connectionId,
      ids,
      docs,
    ]);
  }
  console.log(`postgres peer: ${count} rows in ${((performance.now() - started) / 1000).toFixed(1)} s, indexing ...`);
  const indexes = [
    `create index if not exists records_json on ${PEER_TABLE} using gin (json jsonb_path_ops)`,
    `create index if not exists records_url_trgm on ${PEER_TABLE} using gin ((json->>'hosted_invoice_url') gin_trgm_ops)`,
    `create index if not exists records_memo_trgm on ${PEER_TABLE} using gin ((json->>'memo') gin_trgm_ops)`,
    `create index if not exists records_memo_fts on ${PEER_TABLE} using gin (to_tsvector('simple', coalesce(json->>'memo', '')))`,
    `create index if not exists records_invoice_date on ${PEER_TABLE} (connection_id, model, (json->>'invoice_date'))`,
  ];
  for (const sql of indexes) await pool.query(sql);
  await pool.query(`vacuum analyze ${PEER_TABLE}`);
  // The load's pages are written out now, not by a checkpoint in the middle of the measurements.
  await pool.query('checkpoint');
  console.log(`postgres peer ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Record instants are stored as `YYYY-MM-DDTHH:MM:SS+00:00`; compare like with like (text order = time order). */
export function peerInstant(iso: string): string {
  return `${iso.slice(0, 19)}+00:00`;
}

/** Every peer query is scoped like Nango's: one connection, one model. */
export const SCOPE = `connection_id = $1 and model = 'invoices'`;

/** A query scoped to the connection and model, ordered like ours (then by record key), `limit + 1` rows. */
export function peerQuery(
  connectionId: string,
  where: string,
  values: unknown[],
  limit: number,
  order = '',
): PeerQuery {
  return {
    text: `select json from ${PEER_TABLE} where ${SCOPE} and (${where}) order by ${order}external_id limit ${limit + 1}`,
    values: [connectionId, ...values],
  };
}

/** `$n` placeholders for values appended after the connection id. */
export function placeholders(values: unknown[]): (value: unknown) => string {
  return (value) => {
    values.push(value);
    return `$${values.length + 1}`;
  };
}
