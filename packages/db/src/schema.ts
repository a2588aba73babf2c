import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

type CreatedAt = ColumnType<Date, Date | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | undefined, Date>;
type Json<T> = ColumnType<T, string, string>;

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: CreatedAt;
}

export interface ApiClientsTable {
  client_id: string;
  /** scrypt hash of the client secret: `scrypt$N$r$p$salt$hash`. */
  secret_hash: string;
  name: string;
  allowed_redirect_urls: Json<string[]>;
  /** Bearer tokens carry the generation they were issued under; an older one is refused (revocation). */
  token_generation: ColumnType<number | string, never, number>;
  created_at: CreatedAt;
}

export interface ClientOrganizationsTable {
  client_id: string;
  organization_id: string;
}

export interface ConnectorsTable {
  id: string;
  organization_id: string;
  connector_type: string;
  customer_name: string;
  name: string;
  /** AES-256-GCM envelope (see apps' crypto): never selected into a response. */
  credentials_ciphertext: string;
  config: Json<Record<string, unknown>>;
  replication_config: Json<Record<string, unknown>>;
  /** The webhook secret (docs/api.md), encrypted like the credentials; null when not configured. */
  webhook_secret_ciphertext: ColumnType<string | null, string | null | undefined, string | null>;
  /** Set when the upstream rejected the stored credentials during a sync; cleared when they are replaced. */
  credentials_rejected_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  credentials_error: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** The sync statuses of an entity (DESIGN), stated once: the API's schemas read this list. */
export const SYNC_STATUSES = ['pending', 'initial_sync', 'ready', 'failed'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

export interface SyncStatesTable {
  connector_id: string;
  entity: string;
  status: SyncStatus;
  running: Generated<boolean>;
  last_success_at: Date | null;
  /** End of the last full pass (read from start_date, then removal of what disappeared). */
  last_full_sync_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** A full pass was asked for (POST .../sync {"mode": "full"}): the next run is one. */
  full_requested: Generated<boolean>;
  last_run_started_at: Date | null;
  record_count: Generated<number>;
  error: string | null;
  /** Incremental cursor: the highest cursor value durably indexed by a finished run. */
  cursor: Json<unknown> | null;
  /** Checkpoint of the run in flight: where to resume after a crash. */
  checkpoint: Json<unknown> | null;
  run_id: string | null;
  /** The process-level run that owns the entity now; writes from any other run are refused. */
  run_owner: string | null;
  updated_at: UpdatedAt;
}

/** Bigints come back from pg as strings; they are written as numbers or strings. */
type BigInt = ColumnType<string, number | string, number | string>;

export interface ChangeFeedHeadsTable {
  connector_id: string;
  last_seq: ColumnType<string, number | string | undefined, number | string>;
  purged_through: ColumnType<string, number | string | undefined, number | string>;
}

export interface RecordStatesTable {
  connector_id: string;
  entity: string;
  key: string;
  version: BigInt;
  content_hash: string | null;
  deleted: boolean;
  /** The event that last changed the record (null before migration 0040). */
  event_seq: ColumnType<BigInt | null, string | null | undefined, string | null>;
}

export interface ChangeEventsTable {
  connector_id: string;
  seq: BigInt;
  type: string;
  entity: string;
  key: string;
  record: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  source: string;
  changed_at: CreatedAt;
  /** The record's event before this one (null for a creation, or before migration 0040). */
  prior_seq: ColumnType<BigInt | null, string | null | undefined, string | null>;
}

/** A jsonb list of names, null for "all". */
type NullableList = ColumnType<string[] | null, string | null, string | null>;

export interface WebhookEndpointsTable {
  id: string;
  organization_id: string;
  url: string;
  description: string | null;
  connector_ids: NullableList;
  entities: NullableList;
  types: NullableList;
  /** `whsec_…`, encrypted like the credentials: shown once at creation, never selected into a response. */
  secret_ciphertext: string;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  disabled_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** Since when every attempt failed (null after a success): five days of it disable the endpoint. */
  failing_since: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Until when the endpoint counts as slow (its last attempt was): one delivery in flight at a time. */
  slow_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface WebhookPositionsTable {
  endpoint_id: string;
  connector_id: string;
  after_seq: BigInt;
}

export interface WebhookDeliveriesTable {
  id: Generated<string>;
  endpoint_id: string;
  connector_id: string;
  seq: BigInt;
  /** `entity/key`: deliveries of one record go out one at a time, in order. */
  record_ref: string;
  /** The body sent, the same bytes on every attempt. */
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Date;
  /** A worker sending it holds it until then; after that (the worker died) another takes it over. */
  leased_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: CreatedAt;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  attempted_at: Date;
  http_status: number | null;
  error: string | null;
  latency_ms: number;
}

/** An Idempotency-Key of a writing execute call (docs/trusted-calls.md); `state` moves in_progress → completed. */
export interface IdempotencyKeysTable {
  organization_id: string;
  connector_id: string;
  key: string;
  /** SHA-256 of the request (entity, action, params): the same key with another request is refused. */
  fingerprint: string;
  state: 'in_progress' | 'completed';
  /** The params sent upstream, with any vendor-side id added: a retry after a crash sends the same. */
  sent_params: ColumnType<unknown, string | null | undefined, string | null>;
  response_status: ColumnType<number | null, number | null | undefined, number | null>;
  response_body: ColumnType<string | null, string | null | undefined, string | null>;
  /** The call that runs the request now (a random id): only it may record the answer. */
  owner: string;
  /** While in progress, the owner's lease: past it, the owner is taken for dead and another call takes over. */
  locked_until: Date;
  created_at: CreatedAt;
  expires_at: Date;
}

/**
 * A call's answer: on the entry itself when the entry was written after the call ended; otherwise in
 * `audit_outcomes` (the entry's columns null), or nowhere when it was never written. Reads take the outcome's column,
 * else the entry's.
 */
interface AuditOutcomeColumns {
  /** The HTTP status of the answer. */
  status: number;
  error_code: string | null;
  upstream_status: number | null;
  latency_ms: number;
}

type EachNullable<T> = { [K in keyof T]: T[K] | null };

/** One audited call (docs/trusted-calls.md); rows are only ever inserted (a trigger refuses the rest). */
export interface AuditEntriesTable extends EachNullable<AuditOutcomeColumns> {
  id: ColumnType<number, never, never>;
  /** Inserted null or left out: now (the database's clock). */
  at: ColumnType<Date, Date | null | undefined, never>;
  organization_id: string;
  client_id: string | null;
  connector_id: string | null;
  /** `api` (the HTTP API) or `mcp` (a tool call). */
  source: string;
  /** `execute.<action>`, `connector.create`, `connector.update`, `connector.delete`, `mcp.tool_call`, ... */
  action: string;
  entity: string | null;
  /** The call's params with every secret replaced by "[REDACTED]". */
  params: ColumnType<unknown, string | null, never>;
  idempotency_key: string | null;
  request_id: string | null;
}

/** The outcome of a call whose intent was written while it ran (`audit_entries.id`); only ever inserted. */
export interface AuditOutcomesTable extends AuditOutcomeColumns {
  entry_id: number;
}

/** A connector kind an organization defined (docs/definitions.md); `name_key` is the name in lower case. */
export interface ConnectorDefinitionsTable {
  organization_id: string;
  name_key: string;
  name: string;
  active_version: number | null;
  created_at: CreatedAt;
}

export interface ConnectorDefinitionVersionsTable {
  organization_id: string;
  name_key: string;
  version: number;
  document: Json<Record<string, unknown>>;
  created_at: CreatedAt;
  activated_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** Usage per organization, connector ('' for none), hour and metric: added to by each process's flush. */
export interface UsageHourlyTable {
  organization_id: string;
  connector_id: string;
  hour: Date;
  metric: string;
  /** bigint: pg hands it back as a string. */
  value: ColumnType<string, number, number>;
}

/** A quota an operator set for an organization (admin CLI); without a row, the deployment's default applies. */
export interface OrganizationQuotasTable {
  organization_id: string;
  quota: string;
  limit: ColumnType<string, number, number>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** The vectors of embedded record texts, by connector, model and text hash (migration 0037). */
export interface TextEmbeddingsTable {
  connector_id: string;
  model: string;
  text_hash: string;
  vector: Buffer;
  created_at: CreatedAt;
}

export interface Database {
  organizations: OrganizationsTable;
  api_clients: ApiClientsTable;
  client_organizations: ClientOrganizationsTable;
  connectors: ConnectorsTable;
  sync_states: SyncStatesTable;
  change_feed_heads: ChangeFeedHeadsTable;
  record_states: RecordStatesTable;
  change_events: ChangeEventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_positions: WebhookPositionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  idempotency_keys: IdempotencyKeysTable;
  audit_entries: AuditEntriesTable;
  audit_outcomes: AuditOutcomesTable;
  connector_definitions: ConnectorDefinitionsTable;
  connector_definition_versions: ConnectorDefinitionVersionsTable;
  usage_hourly: UsageHourlyTable;
  organization_quotas: OrganizationQuotasTable;
  text_embeddings: TextEmbeddingsTable;
}

export type ConnectorRow = Selectable<ConnectorsTable>;
export type NewConnectorRow = Insertable<ConnectorsTable>;
export type SyncStateRow = Selectable<SyncStatesTable>;
export type AuditEntryRow = Selectable<AuditEntriesTable>;
export type NewAuditEntry = Insertable<AuditEntriesTable>;
