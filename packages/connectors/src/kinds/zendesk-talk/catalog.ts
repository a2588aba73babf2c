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
import { zendeskWebhooks } from './webhooks.ts';

/*
 * Telephony = Zendesk Talk API (docs/api.md), base https://{subdomain}.zendesk.com/api/v2/channels/voice.
 * Sources: the specification's "Telephony connector", the specification (credentials, replication_config, config), and
 * the vendor's API reference.
 *
 * The specification: "Every field is nullable" (for telephony, the identifier too), which is what the `t` builders
 * produce by default: no field below uses notNull.
 * Timestamps that the specification types as strings (created_at, updated_at) are typed `datetime` so search compares
 * them as instants.
 */

// The specification: "Paginated list actions return meta.next_page (string or null)".
const meta: FieldMap = { next_page: t.string() };

/** The specification lists these entities' list actions with parameters "none". */
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
// Settings entities (the specification lists their fields)
// ---------------------------------------------------------------------------------------------------------------

/** The specification does not list phone_numbers.line_type as state, the specification says "(phone or digital)". */
export const LINE_TYPES = ['phone', 'digital'] as const;

const phoneNumberRecord: FieldMap = {
  id: t.integer(),
  brand_id: t.integer(),
  default_group_id: t.integer(),
  ivr_id: t.integer(),
  priority: t.integer(),
  schedule_id: t.integer(),
  sms_group_id: t.integer(),
  call_recording_consent: t.string(),
  country_code: t.string(),
  created_at: t.datetime(),
  display_number: t.string(),
  failover_number: t.string(),
  line_type: t.string({ enum: LINE_TYPES }),
  location: t.string(),
  name: t.string(),
  nickname: t.string(),
  number: t.string(),
  token: t.string(),
  external: t.boolean(),
  outbound_enabled: t.boolean(),
  recorded: t.boolean(),
  sms_enabled: t.boolean(),
  toll_free: t.boolean(),
  transcription: t.boolean(),
  voice_enabled: t.boolean(),
  capabilities: t.object(),
  categorised_greetings: t.object(),
  categorised_greetings_with_sub_settings: t.object(),
  default_greeting_ids: t.array(),
  greeting_ids: t.array(),
  group_ids: t.array(),
};

// The specification: "Searchable: all except brand_id".
const phoneNumbers = zendeskList('phone_numbers', 'phone_number', phoneNumberRecord, {
  searchable: omit(phoneNumberRecord, ['brand_id']),
});

const addressRecord: FieldMap = {
  id: t.integer(),
  city: t.string(),
  country_code: t.string(),
  name: t.string(),
  provider_reference: t.string(),
  province: t.string(),
  state: t.string(),
  street: t.string(),
  zip: t.string(),
};

const addresses = zendeskList('addresses', 'address', addressRecord);

const greetingRecord: FieldMap = {
  id: t.string(),
  active: t.boolean(),
  default: t.boolean(),
  default_lang: t.boolean(),
  has_sub_settings: t.boolean(),
  pending: t.boolean(),
  audio_name: t.string(),
  audio_url: t.string(),
  name: t.string(),
  category_id: t.integer(),
  upload_id: t.integer(),
  ivr_ids: t.array(),
  phone_number_ids: t.array(),
};

// The specification: greeting_id is a string (Zendesk greeting ids can be non-numeric, e.g. "voicemail_en").
const greetings = zendeskList('greetings', 'greeting', greetingRecord, { id: pathId });

const greetingCategoryRecord: FieldMap = { id: t.integer(), name: t.string() };

const greetingCategories = zendeskList('greeting_categories', 'greeting_category', greetingCategoryRecord);

const ivrRecord: FieldMap = {
  id: t.integer(),
  name: t.string(),
  phone_number_ids: t.array(),
  phone_number_names: t.array(),
  menus: t.array(),
};

// The IVR resource is singular in the path: GET /api/v2/channels/voice/ivr → {ivrs: [...]}.
const ivrs = zendeskList('ivrs', 'ivr', ivrRecord, { path: 'ivr' });

// ---------------------------------------------------------------------------------------------------------------
// Statistics (current day)
// ---------------------------------------------------------------------------------------------------------------

/** The specification's "States": telephony agents_activity.agent_state. */
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

/** The specification's "States": telephony agents_activity.call_status (on_call, wrap_up, or null: the field is nullable). */
export const CALL_STATUSES = ['on_call', 'wrap_up'] as const;

const agentActivityRecord: FieldMap = {
  agent_id: t.integer(),
  available_time: t.integer(),
  away_time: t.integer(),
  calls_accepted: t.integer(),
  calls_denied: t.integer(),
  calls_missed: t.integer(),
  online_time: t.integer(),
  total_call_duration: t.integer(),
  total_talk_time: t.integer(),
  total_wrap_up_time: t.integer(),
  transfers_only_time: t.integer(),
  accepted_third_party_conferences: t.integer(),
  accepted_transfers: t.integer(),
  average_hold_time: t.integer(),
  average_talk_time: t.integer(),
  average_wrap_up_time: t.integer(),
  calls_put_on_hold: t.integer(),
  started_third_party_conferences: t.integer(),
  started_transfers: t.integer(),
  total_hold_time: t.integer(),
  agent_state: t.string({ enum: AGENT_STATES }),
  avatar_url: t.string(),
  call_status: t.string({ enum: CALL_STATUSES }),
  forwarding_number: t.string(),
  name: t.string(),
  via: t.string(),
};

const agentsActivity: EntityCatalog = {
  name: 'agents_activity',
  // One row per agent (vendor's API reference: pk agent_id); a full refresh keeps today's figures.
  recordKey: 'agent_id',
  upstream: offsetList('stats/agents_activity', 'agents_activity'),
  record: agentActivityRecord,
  meta,
  searchable: agentActivityRecord,
  actions: { list: pagedParams },
  sync: fullRefresh,
};

/*
 * Single-object statistics (stats/agents_overview, stats/account_overview, stats/current_queue_activity): the
 * upstream returns one object; the list returns it as the only record, with `current_timestamp` (unix seconds of
 * the read) added, as the vendor's reference replication does. That field is the record key: every run writes a
 * new snapshot and the full refresh removes the previous one. These lists are not paginated: no Meta.
 */
const agentsOverviewRecord: FieldMap = {
  average_calls_accepted: t.integer(),
  average_calls_denied: t.integer(),
  average_calls_missed: t.integer(),
  average_wrap_up_time: t.integer(),
  total_calls_accepted: t.integer(),
  total_calls_denied: t.integer(),
  total_calls_missed: t.integer(),
  total_talk_time: t.integer(),
  total_wrap_up_time: t.integer(),
  average_accepted_transfers: t.integer(),
  average_available_time: t.integer(),
  average_away_time: t.integer(),
  average_calls_put_on_hold: t.integer(),
  average_hold_time: t.integer(),
  average_online_time: t.integer(),
  average_started_transfers: t.integer(),
  average_talk_time: t.integer(),
  average_transfers_only_time: t.integer(),
  current_timestamp: t.integer(),
  total_accepted_transfers: t.integer(),
  total_calls_put_on_hold: t.integer(),
  total_hold_time: t.integer(),
  total_started_transfers: t.integer(),
};

const agentsOverview = statsSnapshot('agents_overview', agentsOverviewRecord);

/*
 * account_overview, current_queue_activity, calls, call_legs: the specification does not show their fields or parameters.
 * Fields are those of the vendor's API (Zendesk Talk API reference: "Get Account Overview", "Show Current Queue
 * Activity", "Incremental Calls Export", "Incremental Call Legs Export"; the same fields as the vendor's reference
 * replication schemas). Searchable fields are not shown either: all record fields are searchable.
 */

/** GET stats/account_overview → {account_overview: {...}}; durations in seconds. */
const accountOverviewRecord: FieldMap = {
  current_timestamp: t.integer(),
  average_call_duration: t.integer(),
  average_callback_wait_time: t.integer(),
  average_hold_time: t.integer(),
  average_queue_wait_time: t.integer(),
  average_time_to_answer: t.integer(),
  average_wrap_up_time: t.integer(),
  max_calls_waiting: t.integer(),
  max_queue_wait_time: t.integer(),
  total_call_duration: t.integer(),
  total_callback_calls: t.integer(),
  total_calls: t.integer(),
  total_calls_abandoned_in_queue: t.integer(),
  total_calls_outside_business_hours: t.integer(),
  total_calls_with_exceeded_queue_wait_time: t.integer(),
  total_calls_with_requested_voicemail: t.integer(),
  total_embeddable_callback_calls: t.integer(),
  total_hold_time: t.integer(),
  total_inbound_calls: t.integer(),
  total_outbound_calls: t.integer(),
  total_textback_requests: t.integer(),
  total_voicemails: t.integer(),
  total_wrap_up_time: t.integer(),
};

const accountOverview = statsSnapshot('account_overview', accountOverviewRecord);

/** GET stats/current_queue_activity → {current_queue_activity: {...}}. */
const currentQueueActivityRecord: FieldMap = {
  current_timestamp: t.integer(),
  agents_online: t.integer(),
  average_wait_time: t.integer(),
  callbacks_waiting: t.integer(),
  calls_waiting: t.integer(),
  embeddable_callbacks_waiting: t.integer(),
  longest_wait_time: t.integer(),
};

const currentQueueActivity = statsSnapshot('current_queue_activity', currentQueueActivityRecord);

/**
 * calls and call_legs list parameters (the specification: "not shown"): the incremental exports' own `start_time`,
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

/** GET stats/incremental/calls?start_time= → {calls: [...], next_page, count, end_time}. Durations in seconds. */
const callRecord: FieldMap = {
  id: t.integer(),
  agent_id: t.integer(),
  call_charge: t.string(),
  call_group_id: t.integer(),
  call_recording_consent: t.string(),
  call_recording_consent_action: t.string(),
  call_recording_consent_keypress: t.string(),
  callback: t.boolean(),
  callback_source: t.string(),
  completion_status: t.string(),
  consultation_time: t.integer(),
  created_at: t.datetime(),
  customer_requested_voicemail: t.boolean(),
  default_group: t.boolean(),
  direction: t.string(),
  duration: t.integer(),
  exceeded_queue_time: t.boolean(),
  hold_time: t.integer(),
  ivr_action: t.string(),
  ivr_destination_group_name: t.string(),
  ivr_hops: t.integer(),
  ivr_routed_to: t.string(),
  ivr_time_spent: t.integer(),
  minutes_billed: t.integer(),
  not_recording_time: t.integer(),
  outside_business_hours: t.boolean(),
  overflowed: t.boolean(),
  overflowed_to: t.string(),
  phone_number: t.string(),
  phone_number_id: t.integer(),
  quality_issues: t.array(),
  recording_control_interactions: t.integer(),
  recording_time: t.integer(),
  talk_time: t.integer(),
  ticket_id: t.integer(),
  time_to_answer: t.integer(),
  updated_at: t.datetime(),
  voicemail: t.boolean(),
  wait_time: t.integer(),
  wrap_up_time: t.integer(),
};

const calls: EntityCatalog = {
  name: 'calls',
  recordKey: 'id',
  upstream: incrementalExport('stats/incremental/calls', 'calls'),
  record: callRecord,
  meta,
  searchable: callRecord,
  actions: { list: incrementalExportParams },
  sync: byUpdatedAt,
  changeCapture: updatedSince,
};

/** GET stats/incremental/legs?start_time= → {legs: [...], next_page, count, end_time}. Durations in seconds. */
const callLegRecord: FieldMap = {
  id: t.integer(),
  agent_id: t.integer(),
  available_via: t.string(),
  call_charge: t.string(),
  call_id: t.integer(),
  completion_status: t.string(),
  conference_from: t.integer(),
  conference_time: t.integer(),
  conference_to: t.integer(),
  consultation_from: t.integer(),
  consultation_time: t.integer(),
  consultation_to: t.integer(),
  created_at: t.datetime(),
  duration: t.integer(),
  forwarded_to: t.string(),
  hold_time: t.integer(),
  minutes_billed: t.integer(),
  quality_issues: t.array(),
  talk_time: t.integer(),
  transferred_from: t.integer(),
  transferred_to: t.integer(),
  type: t.string(),
  updated_at: t.datetime(),
  user_id: t.integer(),
  wrap_up_time: t.integer(),
};

const callLegs: EntityCatalog = {
  name: 'call_legs',
  recordKey: 'id',
  upstream: incrementalExport('stats/incremental/legs', 'legs'),
  record: callLegRecord,
  meta,
  searchable: callLegRecord,
  actions: { list: incrementalExportParams },
  sync: byUpdatedAt,
  changeCapture: updatedSince,
};

// ---------------------------------------------------------------------------------------------------------------
// Credentials, replication_config, config (the specification)
// ---------------------------------------------------------------------------------------------------------------

const secret = z.string().min(1);

/** The specification's "Telephony connector, OAuth method": sent as `Authorization: Bearer <access_token>`. */
export const zendeskTalkOAuthCredentials = z.strictObject({
  access_token: secret,
  refresh_token: secret.optional(),
  client_id: secret.optional(),
  client_secret: secret.optional(),
});

/** The specification's "Telephony connector, token method": Basic `{email}/token:{api_token}`. */
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

/** The specification: "UTC, form YYYY-MM-DDT00:00:00Z" (midnight UTC of a valid calendar day). */
const midnightUtc = z.iso
  .datetime({ offset: false })
  .regex(/^\d{4}-\d{2}-\d{2}T00:00:00Z$/, 'must have the form YYYY-MM-DDT00:00:00Z, e.g. 2024-01-01T00:00:00Z');

const replicationConfig = z.strictObject({ start_date: midnightUtc });

/** The specification's "Connector configuration variables (telephony)" and docs/api.md (validated subdomain). */
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
