import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { inheritedEnv } from './child-env.ts';
import { dropDatabase, onAdminDatabase, withDatabaseName } from './databases.ts';

/**
 * A database of its own for the API of another checkout (an A/B of code in a benchmark): created fresh, migrated
 * by that checkout's own migrations, then given the rows of `tables` copied from the database `fromUrl` names, in
 * that order (parents before the rows that refer to them), for the columns both schemas have. An older checkout
 * cannot share this checkout's database: its migrator refuses migrations it does not know, and its queries expect
 * its own schema. Returns the new database's URL; `dropDatabase` removes it.
 *
 * @example
 * const url = await checkoutDatabase('../before', env.DATABASE_URL, 'conduit_bench_b_bench',
 *   ['organizations', 'api_clients', 'client_organizations', 'connectors']);
 */
export async function checkoutDatabase(
  checkout: string,
  fromUrl: string,
  name: string,
  tables: readonly string[],
): Promise<string> {
  const url = withDatabaseName(fromUrl, name);
  await dropDatabase(url);
  await onAdminDatabase(fromUrl, (admin) => admin.query(`create database "${name}"`));
  await migrateWith(checkout, url);
  const from = new pg.Client({ connectionString: fromUrl });
  const to = new pg.Client({ connectionString: url });
  await from.connect();
  await to.connect();
  try {
    for (const table of tables) await copyRows(from, to, table);
  } finally {
    await from.end();
    await to.end();
  }
  return url;
}

/** Runs the checkout's own migrations (its @conduit/db, its kysely) on `databaseUrl`, in a process of its own. */
async function migrateWith(checkout: string, databaseUrl: string): Promise<void> {
  const db = pathToFileURL(join(checkout, 'packages/db/src/index.ts')).href;
  const script = `
    const { createDatabase, migrateToLatest } = await import(${JSON.stringify(db)});
    const db = createDatabase(process.env.DATABASE_URL, 2);
    try { await migrateToLatest(db); } finally { await db.destroy(); }`;
  const child = spawn(process.execPath, ['--input-type=module', '--eval', script], {
    env: { ...inheritedEnv(), DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the migrations of ${checkout} exited with ${code}`);
}

/**
 * Every row of `table`, for the columns both databases have (the target's generated columns and the columns only
 * one side has are left to the target's defaults). The rows travel as JSON, which Postgres reads back into each
 * column's type (json_populate_recordset): no per-type conversion here.
 * https://www.postgresql.org/docs/current/functions-json.html
 */
async function copyRows(from: pg.Client, to: pg.Client, table: string): Promise<void> {
  const columnsOf = async (client: pg.Client, writable: boolean) =>
    (
      await client.query<{ column_name: string }>(
        `select column_name from information_schema.columns
          where table_schema = 'public' and table_name = $1 ${writable ? "and is_generated = 'NEVER'" : ''}
          order by ordinal_position`,
        [table],
      )
    ).rows.map((row) => row.column_name);
  const target = new Set(await columnsOf(to, true));
  const columns = (await columnsOf(from, false)).filter((column) => target.has(column));
  if (columns.length === 0) throw new Error(`${table}: no column in common (is it a table of both schemas?)`);
  const list = columns.map((column) => `"${column}"`).join(', ');
  const { rows } = await from.query<{ rows: unknown[] }>(
    `select coalesce(json_agg(t), '[]'::json) as rows from (select ${list} from "${table}") t`,
  );
  await to.query(
    `insert into "${table}" (${list}) select ${list} from json_populate_recordset(null::"${table}", $1::json)
      on conflict do nothing`,
    [JSON.stringify(rows[0]!.rows)],
  );
}
