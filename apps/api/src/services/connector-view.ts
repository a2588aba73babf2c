import type { KindCatalog } from '@conduit/connectors';
import type { ConnectorRow, SyncStateRow } from '@conduit/db';

export interface EntityStatusView {
  status: string;
  running: boolean;
  last_success_at: string | null;
  last_full_sync_at: string | null;
  record_count: number;
  error: string | null;
}

/** Where the upstream sends webhooks (docs/api.md), and whether a secret is set (the secret is never shown). */
function webhookView(row: ConnectorRow, catalog: KindCatalog, baseUrl: string) {
  if (!catalog.webhooks) return { webhook_url: null, webhooks: 'unsupported' as const };
  return {
    webhook_url: `${baseUrl}/api/v1/integrations/connectors/${encodeURIComponent(row.id)}/webhooks`,
    webhooks: row.webhook_secret_ciphertext ? ('configured' as const) : ('not_configured' as const),
  };
}

/** The public shape of a connector (docs/architecture.md): never its credentials nor its webhook secret. */
export function connectorView(
  row: ConnectorRow,
  catalog: KindCatalog,
  states: readonly SyncStateRow[],
  options: { publicBaseUrl?: string } = {},
) {
  const byEntity = new Map(states.map((s) => [s.entity, s]));
  const entities: Record<string, EntityStatusView> = {};
  for (const [name, entity] of Object.entries(catalog.entities)) {
    if (!entity.searchable) continue;
    const state = byEntity.get(name);
    entities[name] = {
      status: state?.status ?? 'pending',
      running: state?.running ?? false,
      last_success_at: state?.last_success_at?.toISOString() ?? null,
      last_full_sync_at: state?.last_full_sync_at?.toISOString() ?? null,
      record_count: state?.record_count ?? 0,
      error: state?.error ?? null,
    };
  }
  return {
    connector_id: row.id,
    connector_type: row.connector_type,
    customer_name: row.customer_name,
    name: row.name,
    config: row.config,
    replication_config: row.replication_config,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    ...webhookView(row, catalog, options.publicBaseUrl ?? ''),
    // `rejected`: a sync found the stored credentials refused upstream; replace them (PATCH) to sync again.
    credentials_status: row.credentials_rejected_at ? ('rejected' as const) : ('ok' as const),
    credentials_error: row.credentials_error ?? null,
    entities,
  };
}

export function searchableEntities(catalog: KindCatalog): string[] {
  return Object.values(catalog.entities)
    .filter((e) => e.searchable)
    .map((e) => e.name);
}
