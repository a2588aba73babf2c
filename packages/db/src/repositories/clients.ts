import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';

/** A new token generation: from one sequence, so larger than any before and never reused. */
const NEXT_GENERATION = sql<number>`nextval('api_client_token_generations')`;

export interface ClientWithOrganizations {
  client_id: string;
  secret_hash: string;
  name: string;
  allowed_redirect_urls: string[];
  token_generation: number;
  organization_ids: string[];
}

/** What a bearer token is checked against on every request: the client's current generation and grants. */
export interface ClientAccess {
  readonly token_generation: number;
  readonly organization_ids: readonly string[];
}

export class ClientsRepository {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async upsertOrganization(id: string, name: string): Promise<void> {
    await this.#db
      .insertInto('organizations')
      .values({ id, name })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  async organizationExists(id: string): Promise<boolean> {
    return (
      (await this.#db.selectFrom('organizations').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
    );
  }

  async upsertClient(client: {
    client_id: string;
    secret_hash: string;
    name: string;
    allowed_redirect_urls: string[];
  }): Promise<void> {
    await this.#db
      .insertInto('api_clients')
      .values({ ...client, allowed_redirect_urls: JSON.stringify(client.allowed_redirect_urls) })
      .onConflict((oc) =>
        // A new secret for an existing client (bootstrap): the tokens issued under the old one stop working.
        oc.column('client_id').doUpdateSet({
          secret_hash: client.secret_hash,
          allowed_redirect_urls: JSON.stringify(client.allowed_redirect_urls),
          token_generation: NEXT_GENERATION,
        }),
      )
      .execute();
  }

  async grant(clientId: string, organizationId: string): Promise<void> {
    await this.#db
      .insertInto('client_organizations')
      .values({ client_id: clientId, organization_id: organizationId })
      .onConflict((oc) => oc.columns(['client_id', 'organization_id']).doNothing())
      .execute();
  }

  /** A new secret; the tokens issued under the old one stop working (their generation is left behind). */
  async setSecretHash(clientId: string, secretHash: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('api_clients')
      .set({ secret_hash: secretHash, token_generation: NEXT_GENERATION })
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Refuses every token issued so far; the client's secret stays valid for new ones. */
  async revokeTokens(clientId: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('api_clients')
      .set({ token_generation: NEXT_GENERATION })
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Removes the client and its grants (cascade); its connectors belong to organizations and stay. */
  async deleteClient(clientId: string): Promise<boolean> {
    const result = await this.#db.deleteFrom('api_clients').where('client_id', '=', clientId).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** One indexed query: the token generation and organizations of a client, or undefined when it is gone. */
  async access(clientId: string): Promise<ClientAccess | undefined> {
    const row = await this.#db
      .selectFrom('api_clients')
      .leftJoin('client_organizations', 'client_organizations.client_id', 'api_clients.client_id')
      .select([
        'api_clients.token_generation',
        sql<(string | null)[]>`array_agg(client_organizations.organization_id)`.as('organization_ids'),
      ])
      .where('api_clients.client_id', '=', clientId)
      .groupBy('api_clients.client_id')
      .executeTakeFirst();
    if (!row) return undefined;
    const organizationIds = row.organization_ids.filter((id): id is string => id !== null);
    return { token_generation: Number(row.token_generation), organization_ids: organizationIds };
  }

  async find(clientId: string): Promise<ClientWithOrganizations | undefined> {
    const row = await this.#db
      .selectFrom('api_clients')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    if (!row) return undefined;
    // bigint arrives as a string; generations stay far below 2^53.
    const client = { ...row, token_generation: Number(row.token_generation) };
    const orgs = await this.#db
      .selectFrom('client_organizations')
      .select('organization_id')
      .where('client_id', '=', clientId)
      .orderBy('organization_id')
      .execute();
    return { ...client, organization_ids: orgs.map((o) => o.organization_id) };
  }
}
