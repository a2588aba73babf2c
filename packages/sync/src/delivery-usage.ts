import type { ClaimedDelivery } from '@conduit/db';
import type { SyncDeps } from './deps.ts';

/**
 * Counts claimed deliveries (each an attempt) as webhook_deliveries of their connector's organization
 * (docs/operations.md, "Usage and quotas"): one connector lookup per connector of the batch, off the send.
 */
export async function countDeliveries(
  deps: Partial<Pick<SyncDeps, 'connectors' | 'usage'>>,
  claimed: readonly ClaimedDelivery[],
): Promise<void> {
  const { usage, connectors } = deps;
  if (!usage || !connectors || claimed.length === 0) return;
  const perConnector = new Map<string, number>();
  for (const delivery of claimed) {
    perConnector.set(delivery.connector_id, (perConnector.get(delivery.connector_id) ?? 0) + 1);
  }
  for (const [connectorId, count] of perConnector) {
    const organizationId = (await connectors.findForSync(connectorId))?.organization_id;
    if (organizationId) usage.add(organizationId, connectorId, 'webhook_deliveries', count);
  }
}
