import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

export interface ClientWithOrganizations {
  client_id: string;
  secret_hash: string;
  name: string;
  allowed_redirect_urls: string[];
  organization_ids: string[];
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
        oc.column('client_id').doUpdateSet({
          secret_hash: client.secret_hash,
          allowed_redirect_urls: JSON.stringify(client.allowed_redirect_urls),
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

  async setSecretHash(clientId: string, secretHash: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('api_clients')
      .set({ secret_hash: secretHash })
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async find(clientId: string): Promise<ClientWithOrganizations | undefined> {
    const client = await this.#db
      .selectFrom('api_clients')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    if (!client) return undefined;
    const orgs = await this.#db
      .selectFrom('client_organizations')
      .select('organization_id')
      .where('client_id', '=', clientId)
      .orderBy('organization_id')
      .execute();
    return { ...client, organization_ids: orgs.map((o) => o.organization_id) };
  }
}
