import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDatabase, migrateToLatest } from '@conduit/db';
import { onAdminDatabase, withDatabaseName } from './databases.ts';

const DB_SOURCE = fileURLToPath(new URL('../../packages/db/src/', import.meta.url));

/**
 * Creates the database `databaseUrl` names as a copy of one already migrated to the latest schema. Running every
 * migration costs each test platform a second or two of Postgres DDL; copying a template (CREATE DATABASE ...
 * TEMPLATE) costs no more than creating an empty database. The platform still runs its migrations on start: with
 * nothing left to apply they only check. Migrating from an empty database stays covered by the db package's tests.
 */
export async function createMigratedDatabase(databaseUrl: string): Promise<void> {
  const template = await migratedTemplate(databaseUrl);
  const name = new URL(databaseUrl).pathname.slice(1);
  await onAdminDatabase(databaseUrl, (admin) => admin.query(`create database "${name}" template "${template}"`));
}

let templateName: Promise<string> | undefined;

/** The template's name, after making sure it exists (once per process). */
function migratedTemplate(databaseUrl: string): Promise<string> {
  templateName ??= ensureTemplate(databaseUrl);
  return templateName;
}

/**
 * The template is named after the migrations' source, so a branch with other migrations gets its own. Test files
 * run side by side: an advisory lock lets one process build it while the others wait. It is built under another
 * name and renamed when complete, so a run killed while migrating never leaves a half-migrated template.
 */
async function ensureTemplate(databaseUrl: string): Promise<string> {
  const template = `conduit_test_template_${migrationsDigest()}`;
  const building = `${template}_building`;
  await onAdminDatabase(databaseUrl, async (admin) => {
    await admin.query('select pg_advisory_lock(hashtext($1))', [template]);
    try {
      const found = await admin.query('select 1 from pg_database where datname = $1', [template]);
      if (found.rowCount !== 0) return;
      await admin.query(`drop database if exists "${building}" with (force)`);
      await admin.query(`create database "${building}"`);
      const db = createDatabase(withDatabaseName(databaseUrl, building), 2);
      try {
        await migrateToLatest(db);
      } finally {
        await db.destroy();
      }
      await admin.query(`alter database "${building}" rename to "${template}"`);
    } finally {
      await admin.query('select pg_advisory_unlock(hashtext($1))', [template]);
    }
  });
  return template;
}

/** A short digest of every migration file and of the list that orders them. */
function migrationsDigest(): string {
  const hash = createHash('sha256');
  const migrations = join(DB_SOURCE, 'migrations');
  for (const file of readdirSync(migrations).sort()) hash.update(file).update(readFileSync(join(migrations, file)));
  hash.update(readFileSync(join(DB_SOURCE, 'migrate.ts')));
  return hash.digest('hex').slice(0, 16);
}
