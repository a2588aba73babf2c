import type { Kysely } from 'kysely';
import type { ConnectorRow, Database, NewConnectorRow } from '../schema.ts';
import { deleteOwned, updateOwned } from './owned-rows.ts';

/** Every read is scoped by organization: a connector of another organization does not exist for the caller. */
export class ConnectorsRepository {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** The organization's connectors: where every read on behalf of a caller starts. */
  #ofOrganization(organizationId: string) {
    return this.#db.selectFrom('connectors').selectAll().where('organization_id', '=', organizationId);
  }

  async insert(row: Omit<NewConnectorRow, 'created_at' | 'updated_at'>): Promise<ConnectorRow> {
    return this.#db.insertInto('connectors').values(row).returningAll().executeTakeFirstOrThrow();
  }

  /** The connector with the same identity (organization, customer, kind, name), if any. */
  async findByIdentity(
    organizationId: string,
    identity: { customer_name: string; connector_type: string; name: string },
  ): Promise<ConnectorRow | undefined> {
    return this.#ofOrganization(organizationId)
      .where('customer_name', '=', identity.customer_name)
      .where('connector_type', '=', identity.connector_type)
      .where('name', '=', identity.name)
      .executeTakeFirst();
  }

  async find(organizationId: string, id: string): Promise<ConnectorRow | undefined> {
    return this.#ofOrganization(organizationId).where('id', '=', id).executeTakeFirst();
  }

  /** For the worker, which acts on behalf of the platform, not of a caller. */
  async findForSync(id: string): Promise<ConnectorRow | undefined> {
    return this.#db.selectFrom('connectors').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Every connector id, for the worker's reconciliation of schedules. */
  async listAllIds(): Promise<string[]> {
    const rows = await this.#db.selectFrom('connectors').select('id').orderBy('created_at').execute();
    return rows.map((r) => r.id);
  }

  async listByOrganization(organizationId: string): Promise<ConnectorRow[]> {
    return this.#ofOrganization(organizationId).orderBy('created_at').execute();
  }

  /**
   * Changes the name, the credentials and the webhook secret (ciphertext; null removes it) in one statement, so a
   * PATCH that changes several of them takes all or none.
   */
  async update(
    organizationId: string,
    id: string,
    changes: { name?: string; credentials_ciphertext?: string; webhook_secret_ciphertext?: string | null },
  ): Promise<ConnectorRow | undefined> {
    return updateOwned(this.#db, 'connectors', organizationId, id)
      .set({
        ...changes,
        // New credentials: whatever the upstream said about the old ones no longer applies.
        ...(changes.credentials_ciphertext === undefined
          ? {}
          : { credentials_rejected_at: null, credentials_error: null }),
        updated_at: new Date(),
      })
      .returningAll()
      .executeTakeFirst();
  }

  /** The upstream rejected the stored credentials during a sync: shown on the connector until replaced. */
  async markCredentialsRejected(id: string, reason: string): Promise<void> {
    await this.#db
      .updateTable('connectors')
      .set({ credentials_rejected_at: new Date(), credentials_error: reason.slice(0, 1000) })
      .where('id', '=', id)
      .execute();
  }

  /** Stores rotated upstream credentials (OAuth refresh) written back by the platform. */
  async replaceCredentials(id: string, credentialsCiphertext: string): Promise<void> {
    await this.#db
      .updateTable('connectors')
      .set({ credentials_ciphertext: credentialsCiphertext, updated_at: new Date() })
      .where('id', '=', id)
      .execute();
  }

  delete(organizationId: string, id: string): Promise<boolean> {
    return deleteOwned(this.#db, 'connectors', organizationId, id);
  }
}
