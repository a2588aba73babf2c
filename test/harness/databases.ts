import pg from 'pg';

/** `url` pointing at another database of the same server. */
export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Runs `work` on the server's `postgres` database (where other databases are created and dropped). */
export async function onAdminDatabase<T>(databaseUrl: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: withDatabaseName(databaseUrl, 'postgres') });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** Drops the database `databaseUrl` names, closing its open connections. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  await onAdminDatabase(databaseUrl, (admin) => admin.query(`drop database if exists "${name}" with (force)`));
}
