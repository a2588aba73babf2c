import { Kysely, type LogEvent, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';

const INT8_OID = 20;

/** Sees every query when it ends: its SQL (parameters apart, never their values), start (ms since epoch), duration. */
export type QueryObserver = (sql: string, startMs: number, durationMs: number, failed: boolean) => void;

// bigint columns (record_count) come back as strings by default; counts here fit in a double.
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID
      ? (value: string) => Number.parseInt(value, 10)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * `onIdleError`: an idle pooled connection that the server ends (restart, admin termination) is reported here;
 * without a listener node-postgres raises it as an uncaught exception. The pool replaces the connection itself.
 * `settings` are session settings of every connection of the pool (e.g. `{ synchronous_commit: 'off' }`).
 */
export function createDatabase(
  databaseUrl: string,
  maxConnections = 10,
  onIdleError: (error: Error) => void = () => undefined,
  settings: Readonly<Record<string, string>> = {},
  onQuery?: QueryObserver,
): Kysely<Database> {
  const options = Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: maxConnections,
    types,
    ...(options ? { options } : {}),
  });
  pool.on('error', onIdleError);
  return new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    ...(onQuery
      ? {
          // Kysely reports each query once it is done, in the caller's async context (so a span lands in its trace).
          log: (event: LogEvent) =>
            onQuery(
              event.query.sql,
              Date.now() - event.queryDurationMillis,
              event.queryDurationMillis,
              event.level === 'error',
            ),
        }
      : {}),
  });
}

/** Creates the database named in `databaseUrl` when it does not exist (local and test set-up). */
export async function ensureDatabaseExists(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!/^[a-zA-Z0-9_-]+$/.test(name)) throw new Error(`unsupported database name: ${name}`);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`create database "${name}"`);
  } catch (error) {
    // A concurrent creator won the race: the database exists, which is what we wanted. Postgres says so as
    // duplicate_database (42P04), or, when both creates ran at once, as a unique violation on the catalog's index.
    const { code, constraint } = error as { code?: string; constraint?: string };
    const raced = code === '42P04' || (code === '23505' && constraint === 'pg_database_datname_index');
    if (!raced) throw error;
  } finally {
    await client.end();
  }
}
