import type { Kysely } from 'kysely';

/** The connector's webhook secret (docs/api.md), encrypted like the credentials; null when webhooks are off. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('connectors').addColumn('webhook_secret_ciphertext', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('connectors').dropColumn('webhook_secret_ciphertext').execute();
}
