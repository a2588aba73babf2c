import { z } from 'zod';
import {
  defineCatalog,
  type EntityCatalog,
  entity,
  fieldCursor,
  REFRESHING_CREDENTIALS,
  type SyncSpec,
  type UpstreamSpec,
} from '../../core/catalog.ts';
import { pathId, SUBDOMAIN_PATTERN } from '../../core/common-schemas.ts';
import { type FieldMap, omit, t } from '../../core/field-spec.ts';
import { fields } from '../../core/fields.ts';
import { zendeskWebhooks } from './webhooks.ts';

/*
 * Telephony = Zendesk Talk API, base https://{subdomain}.zendesk.com/api/v2/channels/voice.
 * Sources: the vendor's API reference (https://developer.zendesk.com/api-reference/voice/talk-api/).
 *
 * Every field is nullable (for telephony, the identifier too), which is what the `t` builders
 * produce by default: no field below uses notNull.
 * Timestamps the vendor sends as strings (created_at, updated_at) are typed `datetime` so search compares
 * them as instants.
 */

// Paginated list actions return meta.next_page (string or null).
const meta: FieldMap = fields`next_page: string`;

/** The catalog lists these entities' list actions with parameters "none". */
const noParams = z.strictObject({});

/** A next_page URL that an earlier page returned in Meta: the caller passes it back to read on. */
const nextPage = z.string().min(1).max(4096).optional();
/** Offset-paged lists: no parameters of their own , but the next page can be asked for. */
const pagedParams = z.strictObject({ next_page: nextPage });

/**
 * Offset-paged list (`{<key>: [...], next_page, previous_page, count}`): `next_page` is a full URL, null on the
 * last page (https://developer.zendesk.com/api-reference/introduction/pagination/#offset-pagination). Replication
 * reads pages of `per_page` 100 (the maximum; Zendesk answers 400 past offset 10,000).
 */
function offsetList(path: string, key: string, get?: { idParam: string; key: string }): UpstreamSpec {
  return {
    path,
    records: key,
    paging: { type: 'next_url', param: 'next_page', nextAt: 'next_page' },
    ...(get ? { get: { path: `${path}/{${get.idParam}}`, record: get.key } } : {}),
    read: { params: { per_page: 100 } },
  };
}

/** Zendesk numeric ids (path parameters). */
const numericId = z.int().min(1);

/** Lists that Zendesk pages (phone_numbers, addresses, ...): full refresh, nothing to filter by. */
const fullRefresh: SyncSpec = { mode: 'full_refresh' };

/**
 * A list Zendesk pages, read whole on every run: `<path>` answers `{<name>: [...]}` and `<path>/{<singular>_id>}`
 * the record under `<singular>` (the path is the name unless given; ids are numeric unless `id` says otherwise).
 * Every record field is searchable unless `searchable` is given.
 */
function zendeskList(
  name: string,
  singular: string,
  record: FieldMap,
  options: { path?: string; id?: z.ZodType; searchable?: FieldMap } = {},
): EntityCatalog {
  const { path = name, id = numericId, searchable } = options;
  const idParam = `${singular}_id`;
  return entity({
    name,
    upstream: offsetList(path, name, { idParam, key: singular }),
    record,
    meta,
    ...(searchable ? { searchable } : {}),
    actions: { list: pagedParams, get: z.strictObject({ [idParam]: id }) },
    sync: fullRefresh,
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Settings entities (the catalog lists their fields)
// ---------------------------------------------------------------------------------------------------------------

/** phone_numbers.line_type: phone or digital. */
export const LINE_TYPES = ['phone', 'digital'] as const;

const phoneNumberRecord: FieldMap = fields`
  id, brand_id, default_group_id, ivr_id, priority, schedule_id, sms_group_id: integer
  call_recording_consent, country_code: string
  created_at: datetime
  display_number, failover_number: string
  line_type: ${t.string({ enum: LINE_TYPES })}
  location, name, nickname, number, token: string
  external, outbound_enabled, recorded, sms_enabled, toll_free, transcription, voice_enabled: boolean
  capabilities, categorised_greetings, categorised_greetings_with_sub_settings: object
  default_greeting_ids, greeting_ids, group_ids: array
`;

// Searchable: all except brand_id.
const phoneNumbers = zendeskList('phone_numbers', 'phone_number', phoneNumberRecord, {
  searchable: omit(phoneNumberRecord, ['brand_id']),
});

const addressRecord: FieldMap = fields`
  id: integer
  city, country_code, name, provider_reference, province, state, street, zip: string
`;

const addresses = zendeskList('addresses', 'address', addressRecord);

const greetingRecord: FieldMap = fields`
  id: string
  active, default, default_lang, has_sub_settings, pending: boolean
  audio_name, audio_url, name: string
  category_id, upload_id: integer
  ivr_ids, phone_number_ids: array
`;

// greeting_id is a string (Zendesk greeting ids can be non-numeric, e.g. voicemail_en).
const greetings = zendeskList('greetings', 'greeting', greetingRecord, { id: pathId });

const greetingCategoryRecord: FieldMap = fields`id: integer; name: string`;

const greetingCategories = zendeskList('greeting_categories', 'greeting_category', greetingCategoryRecord);

const ivrRecord: FieldMap = fields`
  id: integer
  name: string
  phone_number_ids, phone_number_names, menus: array
`;

// The IVR resource is singular in the path: GET /api/v2/channels/voice/ivr → {ivrs: [...]}.
const ivrs = zendeskList('ivrs', 'ivr', ivrRecord, { path: 'ivr' });

// ---------------------------------------------------------------------------------------------------------------
// Statistics (current day)
// ---------------------------------------------------------------------------------------------------------------

/** States: telephony agents_activity.agent_state. */
export const AGENT_STATES = ['online', 'offline', 'away', 'transfers_only'] as const;
/** A stats endpoint's snapshot: one record, keyed by when Zendesk computed it, every field searchable, read whole. */
function statsSnapshot(name: string, record: FieldMap): EntityCatalog {
  return {
    name,
    recordKey: 'current_timestamp',
    record,
    searchable: record,
    actions: { list: noParams },
    sync: fullRefresh,
  };
}

/** States: telephony agents_activity.call_status (on_call, wrap_up, or null: the field is nullable). */
export const CALL_STATUSES = ['on_call', 'wrap_up'] as const;

const agentActivityRecord: FieldMap = fields`
  agent_id, available_time, away_time, calls_accepted, calls_denied, calls_missed, online_time,
  total_call_duration, total_talk_time, total_wrap_up_time, transfers_only_time,
  accepted_third_party_conferences, accepted_transfers, average_hold_time, average_talk_time,
  average_wrap_up_time, calls_put_on_hold, started_third_party_conferences, started_transfers, total_hold_time: integer
  agent_state: ${t.string({ enum: AGENT_STATES })}
  avatar_url: string
  call_status: ${t.string({ enum: CALL_STATUSES })}
  forwarding_number, name, via: string
`;

const agentsActivity = entity({
  name: 'agents_activity',
  // One row per agent (vendor's API reference: pk agent_id); a full refresh keeps today's figures.
  recordKey: 'agent_id',
  upstream: offsetList('stats/agents_activity', 'agents_activity'),
  record: agentActivityRecord,
  meta,
  actions: { list: pagedParams },
  sync: fullRefresh,
});

/*
 * Single-object statistics (stats/agents_overview, stats/account_overview, stats/current_queue_activity): the
 * upstream returns one object; the list returns it as the only record, with `current_timestamp` (unix seconds of
 * the read) added, as the vendor's reference replication does. That field is the record key: every run writes a
 * new snapshot and the full refresh removes the previous one. These lists are not paginated: no Meta.
 */
const agentsOverviewRecord: FieldMap = fields`
  average_calls_accepted, average_calls_denied, average_calls_missed, average_wrap_up_time, total_calls_accepted,
  total_calls_denied, total_calls_missed, total_talk_time, total_wrap_up_time, average_accepted_transfers,
  average_available_time, average_away_time, average_calls_put_on_hold, average_hold_time, average_online_time,
  average_started_transfers, average_talk_time, average_transfers_only_time, current_timestamp,
  total_accepted_transfers, total_calls_put_on_hold, total_hold_time, total_started_transfers: integer
`;

const agentsOverview = statsSnapshot('agents_overview', agentsOverviewRecord);

/*
 * account_overview, current_queue_activity, calls, call_legs: the catalog does not show their fields or parameters.
 * Fields are those of the vendor's API (Zendesk Talk API reference: "Get Account Overview", "Show Current Queue
 * Activity", "Incremental Calls Export", "Incremental Call Legs Export"; the same fields as the vendor's reference
 * replication schemas). Searchable fields are not shown either: all record fields are searchable.
 */

/** GET stats/account_overview → {account_overview: {...}}; durations in seconds. */
const accountOverviewRecord: FieldMap = fields`
  current_timestamp, average_call_duration, average_callback_wait_time, average_hold_time,
  average_queue_wait_time, average_time_to_answer, average_wrap_up_time, max_calls_waiting,
  max_queue_wait_time, total_call_duration, total_callback_calls, total_calls, total_calls_abandoned_in_queue,
  total_calls_outside_business_hours, total_calls_with_exceeded_queue_wait_time,
  total_calls_with_requested_voicemail, total_embeddable_callback_calls, total_hold_time, total_inbound_calls,
  total_outbound_calls, total_textback_requests, total_voicemails, total_wrap_up_time: integer
`;

const accountOverview = statsSnapshot('account_overview', accountOverviewRecord);

/** GET stats/current_queue_activity → {current_queue_activity: {...}}. */
const currentQueueActivityRecord: FieldMap = fields`
  current_timestamp, agents_online, average_wait_time, callbacks_waiting,
  calls_waiting, embeddable_callbacks_waiting, longest_wait_time: integer
`;

const currentQueueActivity = statsSnapshot('current_queue_activity', currentQueueActivityRecord);

/**
 * calls and call_legs list parameters: the incremental exports' own `start_time`,
 * unix seconds, inclusive (the connector starts at 0, the beginning, when it is omitted). The exports page by
 * time: the next page is `start_time` = the previous response's end_time, so `next_page` in Meta is the URL of
 * that page and no other paging parameter exists.
 */
const incrementalExportParams = z.strictObject({ start_time: z.int().min(0).optional(), next_page: nextPage });

/** Incremental exports filter by updated_at (vendor's API reference: cursor updated_at, start_time inclusive). */
const byUpdatedAt: SyncSpec = { mode: 'incremental', cursorField: 'updated_at' };
/**
 * Talk's incremental exports are "updated since" reads (start_time on updated_at: the vendor's API reference,
 * Zendesk Talk API "Incremental Exports"): an edited call or leg comes back. The Talk API has no endpoint that
 * deletes a call or a leg, so there are no deletions to miss.
 */
const updatedSince = fieldCursor(
  { seesEdits: true, seesDeletions: true },
  'Zendesk Talk API, Incremental Exports (start_time on updated_at)',
);

/**
 * Zendesk Talk incremental exports (https://developer.zendesk.com/api-reference/voice/talk-api/incremental_exports/)
 * page by time: `next_page` is never null (the URL of the export from this page's end_time on), and `count` below a
 * full page (1000) says the export has caught up.
 */
function incrementalExport(path: string, key: string): UpstreamSpec {
  return {
    path,
    records: key,
    paging: { type: 'next_url', param: 'next_page', nextAt: 'next_page', fullPage: { countAt: 'count', size: 1000 } },
  };
}

/** An entity read from an incremental export (calls, call_legs): incremental on updated_at, every field searchable. */
function exported(name: string, path: string, key: string, record: FieldMap): EntityCatalog {
  return entity({
    name,
    upstream: incrementalExport(path, key),
    record,
    meta,
    actions: { list: incrementalExportParams },
    sync: byUpdatedAt,
    changeCapture: updatedSince,
  });
}

/** GET stats/incremental/calls?start_time= → {calls: [...], next_page, count, end_time}. Durations in seconds. */
const callRecord: FieldMap = fields`
  id, agent_id: integer
  call_charge: string
  call_group_id: integer
  call_recording_consent, call_recording_consent_action, call_recording_consent_keypress: string
  callback: boolean
  callback_source, completion_status: string
  consultation_time: integer
  created_at: datetime
  customer_requested_voicemail, default_group: boolean
  direction: string
  duration: integer
  exceeded_queue_time: boolean
  hold_time: integer
  ivr_action, ivr_destination_group_name: string
  ivr_hops: integer
  ivr_routed_to: string
  ivr_time_spent, minutes_billed, not_recording_time: integer
  outside_business_hours, overflowed: boolean
  overflowed_to, phone_number: string
  phone_number_id: integer
  quality_issues: array
  recording_control_interactions, recording_time, talk_time, ticket_id, time_to_answer: integer
  updated_at: datetime
  voicemail: boolean
  wait_time, wrap_up_time: integer
`;

const calls = exported('calls', 'stats/incremental/calls', 'calls', callRecord);

/** GET stats/incremental/legs?start_time= → {legs: [...], next_page, count, end_time}. Durations in seconds. */
const callLegRecord: FieldMap = fields`
  id, agent_id: integer
  available_via, call_charge: string
  call_id: integer
  completion_status: string
  conference_from, conference_time, conference_to, consultation_from, consultation_time, consultation_to: integer
  created_at: datetime
  duration: integer
  forwarded_to: string
  hold_time, minutes_billed: integer
  quality_issues: array
  talk_time, transferred_from, transferred_to: integer
  type: string
  updated_at: datetime
  user_id, wrap_up_time: integer
`;

const callLegs = exported('call_legs', 'stats/incremental/legs', 'legs', callLegRecord);

// ---------------------------------------------------------------------------------------------------------------
// Credentials, replication_config, config
// ---------------------------------------------------------------------------------------------------------------

const secret = z.string().min(1);

/** The OAuth method: sent as `Authorization: Bearer <access_token>`. */
export const zendeskTalkOAuthCredentials = z.strictObject({
  access_token: secret,
  refresh_token: secret.optional(),
  client_id: secret.optional(),
  client_secret: secret.optional(),
});

/** The token method: Basic `{email}/token:{api_token}`. */
export const zendeskTalkTokenCredentials = z.strictObject({
  email: z.email(),
  api_token: secret,
});

/** Both methods are strict objects with disjoint required fields, so a credentials object matches at most one. */
const credentials = z.union([zendeskTalkOAuthCredentials, zendeskTalkTokenCredentials], {
  error:
    'credentials must be either the OAuth method {access_token, refresh_token?, client_id?, client_secret?} ' +
    'or the token method {email, api_token}',
});

/** UTC, form YYYY-MM-DDT00:00:00Z (midnight UTC of a valid calendar day). */
const midnightUtc = z.iso
  .datetime({ offset: false })
  .regex(/^\d{4}-\d{2}-\d{2}T00:00:00Z$/, 'must have the form YYYY-MM-DDT00:00:00Z, e.g. 2024-01-01T00:00:00Z');

const replicationConfig = z.strictObject({ start_date: midnightUtc });

/** The connector configuration: the account's subdomain, validated. */
const config = z.strictObject({
  subdomain: z
    .string()
    .regex(SUBDOMAIN_PATTERN, 'must be the account subdomain (lowercase letters, digits and hyphens, e.g. mycompany)'),
});

export const zendeskTalkCatalog = defineCatalog({
  connectorType: 'Zendesk-Talk',
  copyVersion: {
    by: 'read_instant',
    why: '`updated_at` has whole-second precision (two edits in one second are not ordered) and several Talk objects have none.',
    source: 'https://developer.zendesk.com/api-reference/voice/talk-api/incremental_exports/',
  },
  rateLimit: {
    perSecond: 50,
    scope: 'per account: 15,000 Talk API requests per 5 minutes (plus the Support API plan limits)',
    source: 'https://developer.zendesk.com/api-reference/voice/talk-api/introduction/',
  },
  purpose: 'telephony',
  credentials,
  replicationConfig,
  config,
  // https://developer.zendesk.com/api-reference/ticketing/oauth/oauth_tokens/ and .../grant_type_tokens/: the
  // client as form fields, PKCE since 2023; `{subdomain}` is the config's validated subdomain (fillUrl).
  auth: {
    tokenUrl: 'https://{subdomain}.zendesk.com/oauth/tokens',
    clientAuth: 'form',
    consent: {
      authorizeUrl: 'https://{subdomain}.zendesk.com/oauth/authorizations/new',
      scopes: ['read'],
      pkce: true,
      authorizeParams: {},
      credentials: REFRESHING_CREDENTIALS,
    },
  },
  webhooks: zendeskWebhooks,
  entities: {
    phone_numbers: phoneNumbers,
    addresses,
    greetings,
    greeting_categories: greetingCategories,
    ivrs,
    agents_activity: agentsActivity,
    agents_overview: agentsOverview,
    account_overview: accountOverview,
    current_queue_activity: currentQueueActivity,
    calls,
    call_legs: callLegs,
  },
});
