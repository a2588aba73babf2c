import type { ConnectorDefinition } from '../core/define-connector.ts';
import type { WebhookScheme } from '../core/webhook-scheme.ts';
import { googleAdsConnector } from './google-ads/connector.ts';
import { googleDriveConnector } from './google-drive/connector.ts';
import { incidentIoConnector } from './incident-io/connector.ts';
import { orbConnector } from './orb/connector.ts';
import { paypalTransactionConnector } from './paypal-transaction/connector.ts';
import { sentryConnector } from './sentry/connector.ts';
import { snapchatMarketingConnector } from './snapchat-marketing/connector.ts';
import { typeformConnector } from './typeform/connector.ts';
import { zendeskTalkConnector } from './zendesk-talk/connector.ts';

/** A kind whatever its credential and config types: built in, or compiled from a definition. */
export type AnyDefinition = ConnectorDefinition<never, never>;

/** Every connector kind the platform runs, by canonical connector_type (docs/api.md). */
export const CONNECTOR_DEFINITIONS: readonly AnyDefinition[] = [
  zendeskTalkConnector,
  paypalTransactionConnector,
  typeformConnector,
  sentryConnector,
  googleAdsConnector,
  incidentIoConnector,
  orbConnector,
  snapchatMarketingConnector,
  googleDriveConnector,
] as unknown as AnyDefinition[];

const byLowerName = new Map(CONNECTOR_DEFINITIONS.map((d) => [d.catalog.connectorType.toLowerCase(), d]));

/** connector_type is matched case-insensitively (docs/api.md). */
export function findConnectorDefinition(connectorType: string): AnyDefinition | undefined {
  return byLowerName.get(connectorType.toLowerCase());
}

export function connectorTypes(): string[] {
  return CONNECTOR_DEFINITIONS.map((d) => d.catalog.connectorType);
}

/** `Zendesk-Talk` → `ZENDESK_TALK`, the suffix of CONNECTOR_BASE_URL_<KIND>. */
export function envSuffix(connectorType: string): string {
  return connectorType.toUpperCase().replaceAll('-', '_');
}

/** The kind's webhook scheme (its catalog's), or undefined for kinds without webhooks (docs/api.md). */
export function webhookSchemeFor(connectorType: string): WebhookScheme | undefined {
  return findConnectorDefinition(connectorType)?.catalog.webhooks;
}
