import type { Logger } from '@conduit/observability';

/** The connector the callback creates from the consent's state and the provider's tokens. */
export interface ConsentConnector {
  readonly organizationId: string;
  readonly customer_name: string;
  readonly connector_type: string;
  readonly name: string;
  readonly credentials: Record<string, unknown>;
  readonly config: Record<string, unknown>;
  readonly replication_config: Record<string, unknown>;
}

/**
 * What the consent flow asks of the app that hosts it (the API): its clients, its connectors. Errors the app
 * throws from these (a 409 for an identity in use, a 400 for credentials) reach the app's route unchanged.
 */
export interface ConsentPorts {
  findClient(
    clientId: string,
  ): Promise<
    { readonly organization_ids: readonly string[]; readonly allowed_redirect_urls: readonly string[] } | undefined
  >;
  /** Throws the app's conflict error when a connector with this identity exists in the organization. */
  ensureNewIdentity(
    organizationId: string,
    identity: { customer_name: string; connector_type: string; name: string },
  ): Promise<void>;
  createConnector(input: ConsentConnector, logger: Logger): Promise<{ readonly connectorId: string }>;
}
