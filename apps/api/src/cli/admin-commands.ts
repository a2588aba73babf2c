import { generateClientSecret, hashClientSecret, QUOTA_NAMES, type QuotaLimits, type QuotaName } from '@conduit/config';
import { ClientsRepository, ConnectorsRepository, type Database, UsageRepository } from '@conduit/db';
import { API_METRICS, dayOf, Quotas, type UsageMetric } from '@conduit/usage';
import type { Kysely } from 'kysely';
import { AdminUsageError } from './admin-arguments.ts';

const FOREIGN_KEY_VIOLATION = '23503';

function isForeignKeyViolation(error: unknown): boolean {
  return (error as { code?: unknown })?.code === FOREIGN_KEY_VIOLATION;
}

/** Admin operations on the platform database; each returns what the CLI prints (never a stored secret). */
export class AdminCommands {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async createOrg(id: string, name: string) {
    await new ClientsRepository(this.#db).upsertOrganization(id, name);
    return { organization_id: id, name };
  }

  /** A new API client granted to existing organizations, all or nothing. The secret is returned once. */
  async createClient(clientId: string, organizationIds: readonly string[], redirectUrls: readonly string[]) {
    if (organizationIds.length === 0) throw new AdminUsageError('create-client needs at least one --org <id>');
    const secret = generateClientSecret();
    const secretHash = await hashClientSecret(secret);
    try {
      await this.#db.transaction().execute(async (trx) => {
        const clients = new ClientsRepository(trx);
        if (await clients.find(clientId)) {
          throw new AdminUsageError(`client '${clientId}' exists; use rotate-secret to issue a new secret`);
        }
        await clients.upsertClient({
          client_id: clientId,
          secret_hash: secretHash,
          name: clientId,
          allowed_redirect_urls: [...redirectUrls],
        });
        for (const org of organizationIds) await clients.grant(clientId, org);
      });
    } catch (error) {
      if (isForeignKeyViolation(error)) {
        throw new AdminUsageError(`unknown organization among ${organizationIds.join(', ')}: create-org it first`);
      }
      throw error;
    }
    return {
      client_id: clientId,
      client_secret: secret,
      organization_ids: [...organizationIds],
      allowed_redirect_urls: [...redirectUrls],
    };
  }

  async rotateSecret(clientId: string) {
    const secret = generateClientSecret();
    const updated = await new ClientsRepository(this.#db).setSecretHash(clientId, await hashClientSecret(secret));
    if (!updated) throw new AdminUsageError(`unknown client '${clientId}'`);
    return { client_id: clientId, client_secret: secret };
  }

  /** Every token issued so far is refused; the secret keeps working for new ones. */
  async revokeTokens(clientId: string) {
    if (!(await new ClientsRepository(this.#db).revokeTokens(clientId))) {
      throw new AdminUsageError(`unknown client '${clientId}'`);
    }
    return { client_id: clientId, tokens_revoked: true };
  }

  /** The client, its grants and (with them) its tokens; connectors belong to organizations and stay. */
  async deleteClient(clientId: string) {
    if (!(await new ClientsRepository(this.#db).deleteClient(clientId))) {
      throw new AdminUsageError(`unknown client '${clientId}'`);
    }
    return { client_id: clientId, deleted: true };
  }

  async grant(clientId: string, organizationId: string) {
    const clients = new ClientsRepository(this.#db);
    if (!(await clients.find(clientId))) throw new AdminUsageError(`unknown client '${clientId}'`);
    try {
      await clients.grant(clientId, organizationId);
    } catch (error) {
      if (isForeignKeyViolation(error)) throw new AdminUsageError(`unknown organization '${organizationId}'`);
      throw error;
    }
    const client = await clients.find(clientId);
    return { client_id: clientId, organization_ids: client?.organization_ids ?? [] };
  }

  /** Identity and creation time of each connector; credentials are never selected into the output. */
  async listConnectors(organizationId: string) {
    const rows = await new ConnectorsRepository(this.#db).listByOrganization(organizationId);
    return rows.map((row) => ({
      connector_id: row.id,
      connector_type: row.connector_type,
      name: row.name,
      customer_name: row.customer_name,
      created_at: row.created_at.toISOString(),
    }));
  }

  /** Sets one quota of the organization (`null`: back to QUOTA_DEFAULTS); applies on every instance within seconds. */
  async setQuota(organizationId: string, quota: string, limit: number | null, defaults: QuotaLimits) {
    if (!(QUOTA_NAMES as readonly string[]).includes(quota)) {
      throw new AdminUsageError(`unknown quota '${quota}': ${QUOTA_NAMES.join(', ')}`);
    }
    try {
      await new UsageRepository(this.#db).setQuota(organizationId, quota, limit);
    } catch (error) {
      if (isForeignKeyViolation(error)) throw new AdminUsageError(`unknown organization '${organizationId}'`);
      throw error;
    }
    return this.showQuotas(organizationId, defaults);
  }

  /** Each quota of the organization: its limit (null: none) and what is used now. */
  async showQuotas(organizationId: string, defaults: QuotaLimits) {
    if (!(await new ClientsRepository(this.#db).organizationExists(organizationId))) {
      throw new AdminUsageError(`unknown organization '${organizationId}'`);
    }
    const rows = new UsageRepository(this.#db);
    const today = (await rows.totalsSince(new Date(dayOf(Date.now())), [organizationId])).get(organizationId);
    let requests = 0;
    for (const [metric, value] of today ?? []) if (API_METRICS.has(metric as UsageMetric)) requests += value;
    const quotas: Record<QuotaName, unknown> = await new Quotas(rows, defaults).stateOf(organizationId, requests);
    return { organization_id: organizationId, quotas };
  }
}
