import { type Connector, connectWith } from './core/connect.ts';
import type { ConnectorSettings } from './core/define-connector.ts';
import { didYouMean } from './core/did-you-mean.ts';
import { ConnectorError } from './core/errors.ts';
import { connectorTypes, findConnectorDefinition } from './kinds/registry.ts';

/**
 * Direct mode: `connect('Orb', { api_key }).execute({ entity: 'customers', action: 'list', params: {} })`.
 * The hosted API's live actions go through this same function.
 */
export function connect(
  connectorType: string,
  credentials: unknown,
  config: unknown = {},
  settings: ConnectorSettings = {},
): Connector {
  const definition = findConnectorDefinition(connectorType);
  if (!definition) {
    throw new ConnectorError('invalid_request', `unknown connector_type '${connectorType}'`, [
      {
        path: '/connector_type',
        message: `supported: ${connectorTypes().join(', ')}.${didYouMean(connectorType, connectorTypes())}`,
      },
    ]);
  }
  return connectWith(definition, credentials, config, settings);
}
