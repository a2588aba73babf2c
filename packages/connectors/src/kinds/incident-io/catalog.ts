import { z } from 'zod';
import {
  defineCatalog,
  type EntityCatalog,
  entity,
  fieldCursor,
  type SyncSpec,
  type UpstreamSpec,
} from '../../core/catalog.ts';
import { noConfig, pathId, startDateReplicationConfig } from '../../core/common-schemas.ts';
import type { FieldMap } from '../../core/field-spec.ts';
import { fields } from '../../core/fields.ts';
import { incidentIoWebhooks } from './webhooks.ts';

/*
 * Incident management = incident.io API, https://api.incident.io, Bearer API key.
 * Sources: https://api-docs.incident.io; for incident_timestamps, severities, custom_fields, catalog_types and
 * schedules the incident.io public API (OpenAPI spec published with incident-io/singer-tap, client/openapi3.json:
 * IncidentTimestampV2, SeverityV2, CustomFieldV2, CatalogTypeV2, ScheduleV2).
 * Incident management records declare only the identifier as non-null.
 */

/** The catalog: paginated list actions return {after, page_size}, both nullable (after is null on the last page). */
const meta: FieldMap = fields`after: string; page_size: integer`;

/**
 * page_size + after of the paginated v2 list endpoints. Maximum page sizes (incident.io API): incidents 250,
 * alerts 50, escalations 50; users, incident_updates and schedules 250 [vendor maximum not confirmed from the
 * reference; the incidents cap is used].
 */
const paged = (maxPageSize: number) =>
  z.strictObject({
    page_size: z.int().min(1).max(maxPageSize).optional(),
    after: z.string().min(1).optional(),
  });

/**
 * incident.io paging (https://api-docs.incident.io/#section/Making-requests/Pagination): `page_size` + `after` in,
 * `pagination_meta.after` out; the last page has no `after` (or null), and an empty page ends the walk even if an
 * `after` came back, so a lenient upstream cannot loop us. Replication reads whole pages at the endpoint's maximum.
 * A record is `<path>/<id>`, wrapped in its singular name. Unpaginated lists return everything.
 */
function upstream(
  path: string,
  plural: string,
  singular: string,
  maxPageSize?: number,
  aliases?: Readonly<Record<string, string>>,
): UpstreamSpec {
  const get = { path: `${path}/{id}`, record: singular };
  const named = aliases ? { aliases } : {};
  if (maxPageSize === undefined) return { path, records: plural, paging: { type: 'none' }, get, ...named };
  return {
    ...named,
    path,
    records: plural,
    paging: { type: 'cursor', param: 'after', nextAt: 'pagination_meta.after', stopOnEmpty: true },
    meta: { page_size: 'pagination_meta.page_size' },
    get,
    read: { params: { page_size: maxPageSize } },
  };
}

const byId = z.strictObject({ id: pathId });
const none = z.strictObject({});

/** GET /v2/incidents accepts updated_at[gte]: incremental on updated_at. */
const incrementalUpdatedAt: SyncSpec = { mode: 'incremental', cursorField: 'updated_at' };
/**
 * incidents have a real "updated since" filter (updated_at[gte], the vendor's API reference; incident.io OpenAPI
 * IncidentsV2 List): edits come back. An incident deleted in the dashboard is just no longer listed: the full
 * pass removes it.
 */
const updatedSince = fieldCursor(
  { seesEdits: true, seesDeletions: false },
  'incident.io API, GET /v2/incidents updated_at[gte]',
);
/** Every other list has no time filter or order upstream: full refresh (which also removes deleted records). */
const fullRefresh: SyncSpec = { mode: 'full_refresh' };

/**
 * An entity read whole on every run (fullRefresh), every record field searchable; `pageSize`: the list pages, at
 * most that many a page; `get: false` when the entity has no get.
 */
function listed(
  name: string,
  path: string,
  singular: string,
  record: FieldMap,
  options: { pageSize?: number; get?: false; aliases?: Readonly<Record<string, string>> } = {},
): EntityCatalog {
  const { pageSize, get = true, aliases } = options;
  return entity({
    name,
    upstream: upstream(path, name, singular, pageSize, aliases),
    record,
    ...(pageSize === undefined ? {} : { meta }),
    actions: { list: pageSize === undefined ? none : paged(pageSize), ...(get ? { get: byId } : {}) },
    sync: fullRefresh,
  });
}

const incidentRecord: FieldMap = fields`
  id!, name, reference, summary: string
  mode: 'standard' | 'retrospective' | 'test' | 'tutorial'
  visibility: 'public' | 'private'
  permalink, call_url: string
  // Neutral names of the vendor's slack_channel_id, slack_channel_name, slack_team_id (the upstream's aliases):
  // identifiers carry no vendor names in the catalog (https://api-docs.incident.io/tag/Incidents-V2).
  chat_channel_id, chat_channel_name, chat_team_id: string
  created_at, updated_at: datetime
  has_debrief: boolean
  creator, incident_status, severity, incident_type: object
  incident_role_assignments, custom_field_entries, duration_metrics, incident_timestamp_values: array
  workload_minutes_late, workload_minutes_sleeping, workload_minutes_total, workload_minutes_working: number
`;

const incidents = entity({
  name: 'incidents',
  upstream: {
    ...upstream('v2/incidents', 'incidents', 'incident', 250, {
      chat_channel_id: 'slack_channel_id',
      chat_channel_name: 'slack_channel_name',
      chat_team_id: 'slack_team_id',
    }),
    // GET /v2/incidents accepts `updated_at[gte]` (https://api-docs.incident.io/tag/Incidents-V2#operation/Incidents%20V2_List),
    // sent as the day: incident.io's documented filter examples are dates; re-reading part of a day is harmless
    // (idempotent writes), missing one is not.
    query: { since: 'updated_at[gte]' },
    read: { params: { page_size: 250 }, since: { param: 'since', format: 'day' } },
  },
  record: incidentRecord,
  // What an incident is about, in people's words: searched by meaning (docs/search.md).
  embed: ['name', 'summary'],
  meta,
  // id: the incident's identifier or its numeric reference.
  actions: { list: paged(250), get: byId },
  sync: incrementalUpdatedAt,
  changeCapture: updatedSince,
});

const alertRecord: FieldMap = fields`
  id!, title, description: string
  status: 'firing' | 'resolved'
  alert_source_id, deduplication_key, source_url: string
  created_at, updated_at, resolved_at: datetime
  attributes: array
`;

const alerts = listed('alerts', 'v2/alerts', 'alert', alertRecord, { pageSize: 50 });

const escalationRecord: FieldMap = fields`
  id!, title: string
  status: 'pending' | 'triggered' | 'acked' | 'resolved' | 'expired' | 'cancelled'
  escalation_path_id: string
  created_at, updated_at: datetime
  creator, priority: object
  events, related_incidents, related_alerts: array
`;

const escalations = listed('escalations', 'v2/escalations', 'escalation', escalationRecord, { pageSize: 50 });

const userRecord: FieldMap = fields`
  id!, name, email: string
  role: string // deprecated upstream (base_role replaces it)
  chat_user_id: string // neutral name of the vendor's slack_user_id (an alias of the upstream)
  base_role: object
  custom_roles: array
`;

const users = listed('users', 'v2/users', 'user', userRecord, {
  pageSize: 250,
  aliases: { chat_user_id: 'slack_user_id' },
});

const incidentUpdateRecord: FieldMap = fields`
  id!, incident_id, message: string
  created_at: datetime
  new_incident_status, new_severity, updater: object
`;

// The catalog lists only list (and search) for incident_updates: no get.
const incidentUpdates = listed('incident_updates', 'v2/incident_updates', 'incident_update', incidentUpdateRecord, {
  pageSize: 250,
  get: false,
});

const incidentRoleRecord: FieldMap = fields`
  id!, name, description, instructions, shortform, role_type: string
  created_at, updated_at: datetime
  required: boolean
`;

// GET /v2/incident_roles is not paginated: list takes no parameters and returns no meta.
const incidentRoles = listed('incident_roles', 'v2/incident_roles', 'incident_role', incidentRoleRecord);

const incidentStatusRecord: FieldMap = fields`
  id!, name, description, category: string
  created_at, updated_at: datetime
  rank: number
`;

// Searchable fields: all record fields, like the other entities of this
// connector (all of them are small scalars).
// Statuses and severities still live under /v1 (https://api-docs.incident.io/tag/Incident-Statuses-V1).
const incidentStatuses = listed('incident_statuses', 'v1/incident_statuses', 'incident_status', incidentStatusRecord);

// ---- Entities whose fields and parameters come from the vendor's API. Searchable: all
// record fields (as for every other entity of this connector). ----

// GET /v2/incident_timestamps (not paginated), GET /v2/incident_timestamps/{id}. IncidentTimestampV2.
const incidentTimestampRecord: FieldMap = fields`id!, name: string; rank: number`;

const incidentTimestamps = listed(
  'incident_timestamps',
  'v2/incident_timestamps',
  'incident_timestamp',
  incidentTimestampRecord,
);

// GET /v1/severities (not paginated), GET /v1/severities/{id}. SeverityV2.
const severityRecord: FieldMap = fields`
  id!, name, description: string
  rank: number
  created_at, updated_at: datetime
`;

const severities = listed('severities', 'v1/severities', 'severity', severityRecord);

// GET /v2/custom_fields (not paginated), GET /v2/custom_fields/{id}. CustomFieldV2.
const customFieldRecord: FieldMap = fields`
  id!, name, description, field_type, catalog_type_id: string
  created_at, updated_at: datetime
`;

const customFields = listed('custom_fields', 'v2/custom_fields', 'custom_field', customFieldRecord);

// GET /v2/catalog_types (not paginated), GET /v2/catalog_types/{id}. CatalogTypeV2.
const catalogTypeRecord: FieldMap = fields`
  id!, name, description, type_name, color, icon: string
  ranked, is_editable: boolean
  registry_type, semantic_type: string
  created_at, updated_at, last_synced_at: datetime
  annotations: object
  categories, required_integrations: string[]
  schema: object
`;

const catalogTypes = listed('catalog_types', 'v2/catalog_types', 'catalog_type', catalogTypeRecord);

// GET /v2/schedules (paginated: page_size + after), GET /v2/schedules/{id}. ScheduleV2.
const scheduleRecord: FieldMap = fields`
  id!, name, timezone: string
  created_at, updated_at: datetime
  annotations, config: object
  team_ids: string[]
  holidays_public_config: object
  current_shifts: array
`;

const schedules = listed('schedules', 'v2/schedules', 'schedule', scheduleRecord, { pageSize: 250 });

export const incidentIoCatalog = defineCatalog({
  connectorType: 'Incident-Io',
  copyVersion: {
    by: 'read_instant',
    why: 'Incidents have `updated_at`, but a removed incident answers 404 with no version to compare, and an edit within the same instant would not move it.',
    source: 'https://api-docs.incident.io/tag/Incidents-V2',
  },
  webhooks: incidentIoWebhooks,
  rateLimit: {
    perSecond: 20,
    scope: 'per API key: 1,200 requests per minute',
    source: 'https://api-docs.incident.io/',
  },
  purpose: 'incident management',
  // An incident.io API key, sent as `Authorization: Bearer <api_key>`.
  credentials: z.strictObject({ api_key: z.string().min(1) }),
  replicationConfig: startDateReplicationConfig,
  config: noConfig,
  entities: {
    incidents,
    alerts,
    escalations,
    users,
    incident_updates: incidentUpdates,
    incident_roles: incidentRoles,
    incident_statuses: incidentStatuses,
    incident_timestamps: incidentTimestamps,
    severities,
    custom_fields: customFields,
    catalog_types: catalogTypes,
    schedules,
  },
});
