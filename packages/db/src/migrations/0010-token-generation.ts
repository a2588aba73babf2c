import { type Kysely, sql } from 'kysely';

/**
 * The generation of a client's bearer tokens: every token carries the one it was issued under, and a token of
 * another generation is refused. Rotating the secret or revoking the tokens moves it on. Generations come from one
 * sequence, so they only grow and are never reused, even by a client deleted and created again under its id.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create sequence api_client_token_generations`.execute(db);
  await db.schema
    .alterTable('api_clients')
    .addColumn('token_generation', 'bigint', (c) => c.notNull().defaultTo(sql`nextval('api_client_token_generations')`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_clients').dropColumn('token_generation').execute();
  await sql`drop sequence api_client_token_generations`.execute(db);
}
