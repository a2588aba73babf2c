import type { ConnectorDefinition } from '../core/define-connector.ts';
import { orbConnector } from './orb/connector.ts';

/** Every connector kind the platform runs, by canonical connector_type. */
export const CONNECTOR_DEFINITIONS: readonly ConnectorDefinition<never, never>[] = [
  orbConnector as ConnectorDefinition<never, never>,
];

const byLowerName = new Map(CONNECTOR_DEFINITIONS.map((d) => [d.catalog.connectorType.toLowerCase(), d]));

/** connector_type is matched case-insensitively (DESIGN §1). */
export function findConnectorDefinition(connectorType: string): ConnectorDefinition<never, never> | undefined {
  return byLowerName.get(connectorType.toLowerCase());
}

export function connectorTypes(): string[] {
  return CONNECTOR_DEFINITIONS.map((d) => d.catalog.connectorType);
}

/** `Zendesk-Talk` → `ZENDESK_TALK`, the suffix of CONNECTOR_BASE_URL_<KIND>. */
export function envSuffix(connectorType: string): string {
  return connectorType.toUpperCase().replaceAll('-', '_');
}
