import type { Kysely } from 'kysely';

/** The run that currently owns an entity's sync: a newer run takes over and an older one stops at its next checkpoint. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sync_states').addColumn('run_owner', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sync_states').dropColumn('run_owner').execute();
}
