import type { ConsentPorts } from '@conduit/oauth-consent';
import type { ApiDeps } from '../../deps.ts';
import { connectorExists, createConnector } from '../../services/create-connector.ts';

/** The API's clients and connectors as the consent flow's ports. */
export function consentPorts(deps: ApiDeps): ConsentPorts {
  return {
    findClient: (clientId) => deps.clients.find(clientId),
    async ensureNewIdentity(organizationId, identity) {
      const existing = await deps.connectors.findByIdentity(organizationId, identity);
      if (existing) throw connectorExists(existing.id);
    },
    async createConnector(input, logger) {
      const view = await createConnector(deps, input, logger);
      return { connectorId: view.connector_id };
    },
  };
}
