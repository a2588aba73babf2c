import { z } from 'zod';
import {
  defineCatalog,
  type EntityCatalog,
  fieldCursor,
  type ParamsSchema,
  REFRESHING_CREDENTIALS,
  type SyncSpec,
} from '../../core/catalog.ts';
import { startDateReplicationConfig } from '../../core/common-schemas.ts';
import { type FieldMap, t, withNullability } from '../../core/field-spec.ts';
import { fields } from '../../core/fields.ts';
import { GOOGLE_CONSENT, GOOGLE_OAUTH } from '../google-oauth.ts';

/*
 * Search advertising = Google Ads REST API. Sources: the Google Ads API reference (GAQL resources customer, campaign, ad_group,
 * ad_group_ad, campaign_label, ad_group_label, ad_group_ad_label, label).
 *
 * Records are the rows of `customers/{cid}/googleAds:search`, in the upstream's camelCase nested shape
 * ({campaign: {...}, metrics: {...}, segments: {date}}); int64 values arrive as JSON strings.
 * Searchable fields are the catalog's snake_case dotted GAQL names; the indexer matches them against the camelCase
 * rows and coerces int64 strings to integers.
 * Search advertising records declare plain types, so every field here is non-null.
 */
const plain = (fields: FieldMap): FieldMap => withNullability(fields, false);

/** Ten digits, no dashes (the catalog's limits). */
export const customerIdSchema = z.string().regex(/^\d{10}$/, 'must be 10 digits without dashes, e.g. 1234567890');

// ---------------------------------------------------------------------------------------------------------------
// Record keys.
//
// A GAQL row that selects segments (segments.date, segments.hour, segments.ad_network_type, ...) is one row per
// (resource, segment values): the campaign resource name alone repeats on every day. No real path of such a row is
// unique, so accounts, campaigns, ad_groups and ad_group_ads use a SYNTHETIC field `_row_key`, which the connector
// adds to every row it returns (list and replication), computed by `googleAdsRowKey` below:
//   <resource name of the row's main resource>, then `|<segment field>=<value>` for every field of `segments` present
//   in the row, in alphabetical order of the field name.
// e.g. `customers/1234567890/campaigns/42|date=2024-01-31` (or `...|adNetworkType=SEARCH|date=2024-01-31|hour=5`
// when those segments are selected). The label association entities and labels are not segmented and use their
// real `resourceName` path.
// ---------------------------------------------------------------------------------------------------------------

/** The synthetic record key of segmented rows (see above). Shared helper for the Google Ads connector. */
export function googleAdsRowKey(row: Readonly<Record<string, unknown>>, mainResource: string): string | null {
  const main = row[mainResource];
  const resourceName =
    typeof main === 'object' && main !== null ? (main as Record<string, unknown>)['resourceName'] : undefined;
  if (typeof resourceName !== 'string' || resourceName === '') return null;
  const segments = row['segments'];
  if (typeof segments !== 'object' || segments === null || Array.isArray(segments)) return resourceName;
  const parts = Object.entries(segments as Record<string, unknown>)
    .filter(([, value]) => value !== undefined && value !== null)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `|${name}=${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
  return resourceName + parts.join('');
}

const rowKey = t.string();

// List actions return also next_page_token, string. Declared nullable: the last page has none
// (the upstream omits nextPageToken there).
const meta: FieldMap = fields`next_page_token: string`;

// ---------------------------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------------------------

/**
 * List parameters of every customer-scoped entity. `pageSize` is accepted and bounded as the catalog
 * states, but the upstream removed it in v17 (fixed 10,000-row pages; sending it fails with PAGE_SIZE_NOT_SUPPORTED):
 * the connector does not forward it.
 */
const listParams = z.strictObject({
  customer_id: customerIdSchema,
  query: z.string().min(1).optional(),
  pageToken: z.string().min(1).optional(),
  pageSize: z.int().min(1).max(10000).optional(),
});

const resourceNamePattern = (collection: string) => new RegExp(`^customers/\\d{10}/${collection}/\\d+$`);
const resourceName = (collection: string) =>
  z
    .string()
    .regex(resourceNamePattern(collection), `must have the form customers/<10-digit customer id>/${collection}/<id>`);

const campaignResourceName = resourceName('campaigns');
const adGroupResourceName = resourceName('adGroups');
const labelResourceName = resourceName('labels');

/** Google Ads: at most 10,000 operations in one mutate request. */
const MAX_OPERATIONS = 10000;

const fieldPathList = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_.]*(,[A-Za-z][A-Za-z0-9_.]*)*$/, 'must be comma-separated field paths, e.g. name,status');

/** The customer id inside `customers/<cid>/...`. */
function customerOf(resource: string): string | undefined {
  return /^customers\/(\d{10})\//.exec(resource)?.[1];
}

/**
 * An update operation: `update` holds resourceName plus the fields to change; `updateMask` (optional, the connector
 * derives it from the given fields when omitted) may only name those mutable fields.
 */
function updateOperation(update: z.ZodObject<z.ZodRawShape>, mutable: readonly string[]) {
  return z.strictObject({ updateMask: fieldPathList.optional(), update }).superRefine((op, ctx) => {
    const changes = Object.keys(op.update).filter((k) => k !== 'resourceName' && op.update[k] !== undefined);
    if (op.updateMask !== undefined) {
      for (const path of op.updateMask.split(',')) {
        if (!mutable.includes(path)) {
          ctx.addIssue({
            code: 'custom',
            path: ['updateMask'],
            message: `unknown update path '${path}'; updatable: ${mutable.join(', ')}`,
          });
        }
      }
    } else if (changes.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['update'],
        message: `give at least one field to change (${mutable.join(', ')}) or an updateMask`,
      });
    }
  });
}

/** Every resource name in the operations must belong to `customer_id` (the upstream rejects others). */
function sameCustomer(
  params: { customer_id: string; operations: readonly object[] },
  ctx: z.RefinementCtx,
  opKey: 'update' | 'create',
  fields: readonly string[],
): void {
  params.operations.forEach((op, i) => {
    const body = (op as Partial<Record<string, Record<string, unknown>>>)[opKey];
    for (const field of fields) {
      const value = body?.[field];
      if (typeof value !== 'string') continue;
      const cid = customerOf(value);
      if (cid !== undefined && cid !== params.customer_id) {
        ctx.addIssue({
          code: 'custom',
          path: ['operations', i, opKey, field],
          message: `belongs to customer ${cid}, not to customer_id ${params.customer_id}`,
        });
      }
    }
  });
}

const mutableStatus = z.enum(['ENABLED', 'PAUSED']);

/**
 * A :mutate call's params: the customer, and 1 to MAX_OPERATIONS operations; where an operation names resources
 * (`resources`: its `create` or `update` body's fields), they must be the customer's.
 */
function mutateParams(
  operation: z.ZodType<object>,
  resources?: { readonly op: 'update' | 'create'; readonly fields: readonly string[] },
): ParamsSchema {
  const params = z.strictObject({
    customer_id: customerIdSchema,
    operations: z.array(operation).min(1).max(MAX_OPERATIONS),
  });
  return resources ? params.superRefine((p, ctx) => sameCustomer(p, ctx, resources.op, resources.fields)) : params;
}

/** An update :mutate call on one kind of resource: the fields given beside `resourceName` are the mutable ones. */
const updateParams = (resourceName: z.ZodString, mutable: z.ZodRawShape) =>
  mutateParams(updateOperation(z.strictObject({ resourceName, ...mutable }), Object.keys(mutable)), {
    op: 'update',
    fields: ['resourceName'],
  });

/** What campaigns and ad groups alike may change. */
const nameAndStatus = { name: z.string().min(1).optional(), status: mutableStatus.optional() };

const campaignUpdateParams = updateParams(campaignResourceName, nameAndStatus);

const adGroupUpdateParams = updateParams(adGroupResourceName, {
  ...nameAndStatus,
  // micros as a string of digits (1,000,000 micros = one currency unit), as the upstream's int64 JSON.
  cpcBidMicros: z
    .string()
    .regex(/^\d{1,18}$/, 'must be a whole number of micros as a string, e.g. "1500000"')
    .optional(),
});

const campaignLabelCreateParams = mutateParams(
  z.strictObject({ create: z.strictObject({ campaign: campaignResourceName, label: labelResourceName }) }),
  { op: 'create', fields: ['campaign', 'label'] },
);

// The catalog shows only customer_id and operations for ad_group_labels create; the operation body is the vendor's
// AdGroupLabelOperation.create {adGroup, label}.
const adGroupLabelCreateParams = mutateParams(
  z.strictObject({ create: z.strictObject({ adGroup: adGroupResourceName, label: labelResourceName }) }),
  { op: 'create', fields: ['adGroup', 'label'] },
);

// labels create: the seed system's action beyond the catalog (POST
// customers/{customer_id}/labels:mutate). LabelOperation.create is the vendor's Label resource: name (1-80
// characters, unique in the account), optional status and text_label (https://developers.google.com/google-ads/api/reference/rpc/latest/Label).
const labelCreateParams = mutateParams(
  z.strictObject({
    create: z.strictObject({
      name: z.string().min(1).max(80),
      status: z.enum(['ENABLED', 'REMOVED']).optional(),
      textLabel: z
        .strictObject({
          backgroundColor: z
            .string()
            .regex(/^#[0-9a-fA-F]{6}$/, 'must be a color like #1a2b3c')
            .optional(),
          description: z.string().max(200).optional(),
        })
        .optional(),
    }),
  }),
);

// ---------------------------------------------------------------------------------------------------------------
// Sync. Customer ids come from `config.customer_ids` (see the kind below); no `parent` is declared because the
// customer list is configuration, not a replicated entity.
// ---------------------------------------------------------------------------------------------------------------

/** GAQL `WHERE segments.date BETWEEN ... ORDER BY segments.date` : incremental on the date. */
const byDate: SyncSpec = { mode: 'incremental', cursorField: 'segments.date' };
/**
 * A row per resource and day: an earlier day's row keeps changing after the cursor passed it (conversions are
 * attributed back to the click's day within the conversion window; a status or name edit rewrites every day's row),
 * and GAQL has no "changed since" filter on these resources (change_status is a separate resource): edits need the
 * full pass. Rows are never deleted (a removed campaign keeps its rows, status REMOVED).
 */
const dailyRows = fieldCursor(
  { seesEdits: false, seesDeletions: true },
  'Google Ads API: segments.date, conversion window (incremental on segments.date)',
);
/**
 * A report of a row per resource and day (dailyRows): the objects GAQL answers in a row, and the synthetic
 * `_row_key` it is keyed by; read by date.
 */
function dailyReport(
  name: string,
  objects: readonly string[],
  searchable: FieldMap,
  actions: EntityCatalog['actions'] = { list: listParams },
): EntityCatalog {
  return {
    name,
    recordKey: '_row_key',
    record: plain({ _row_key: rowKey, ...Object.fromEntries(objects.map((name) => [name, t.object()])) }),
    meta,
    searchable: plain(searchable),
    actions,
    sync: byDate,
    changeCapture: dailyRows,
  };
}

/** Label associations cannot be filtered by time: full refresh. */
const fullRefresh: SyncSpec = { mode: 'full_refresh' };

// ---------------------------------------------------------------------------------------------------------------
// Entities
// ---------------------------------------------------------------------------------------------------------------

/*
 * accounts: the catalog lists only `customer` as record field but segments.date as searchable, so rows are read
 * with segments.date selected (one row per customer and day, like the vendor's reference replication), and the
 * record carries `segments` and the synthetic `_row_key`.
 */
const accountFields = fields`
  customer.auto_tagging_enabled: boolean
  customer.call_reporting_setting.call_conversion_action: string
  customer.call_reporting_setting.call_conversion_reporting_enabled,
  customer.call_reporting_setting.call_reporting_enabled: boolean
  customer.conversion_tracking_setting.conversion_tracking_id,
  customer.conversion_tracking_setting.cross_account_conversion_tracking_id: integer
  customer.currency_code, customer.descriptive_name, customer.final_url_suffix: string
  customer.has_partners_badge: boolean
  customer.id: integer
  customer.manager: boolean
  customer.optimization_score, customer.optimization_score_weight: number
  customer.pay_per_conversion_eligibility_failure_reasons: array
  // Neutral name of the vendor's customer.remarketing_setting.google_global_site_tag (the catalog's neutral naming).
  customer.remarketing_setting.provider_global_site_tag, customer.resource_name: string
  customer.test_account: boolean
  customer.time_zone, customer.tracking_url_template: string
  segments.date: datetime
`;

const entityStatus = ['ENABLED', 'PAUSED', 'REMOVED'] as const;

const campaignFields = fields`
  campaign.id: integer
  campaign.name: string
  campaign.status: ${t.string({ enum: entityStatus })}
  campaign.advertising_channel_type, campaign.advertising_channel_sub_type,
  campaign.bidding_strategy, campaign.bidding_strategy_type, campaign.campaign_budget: string
  // Dates (YYYY-MM-DD) upstream: typed datetime so searches compare them as instants.
  campaign.start_date, campaign.end_date: datetime
  campaign.serving_status, campaign.resource_name: string
  campaign_budget.amount_micros: integer
  campaign.labels: array
  // Neutral name of the vendor's campaign.network_settings.target_google_search (the catalog's neutral naming).
  campaign.network_settings.target_provider_search, campaign.network_settings.target_search_network,
  campaign.network_settings.target_content_network, campaign.network_settings.target_partner_search_network: boolean
  metrics.clicks, metrics.cost_micros, metrics.impressions, metrics.interactions: integer
  metrics.ctr, metrics.conversions, metrics.conversions_value, metrics.average_cpc, metrics.average_cpm: number
  segments.date: datetime
  // Replicated rows are per campaign, day, hour (0-23) and network (SEARCH, CONTENT, YOUTUBE, ...), so these two
  // filter and group them: https://developers.google.com/google-ads/api/fields/v20/segments
  segments.hour: integer
  segments.ad_network_type: string
`;

const adGroupFields = fields`
  campaign.id, ad_group.id: integer
  ad_group.name: string
  ad_group.status: ${t.string({ enum: entityStatus })}
  ad_group.type, ad_group.ad_rotation_mode, ad_group.base_ad_group, ad_group.campaign,
  ad_group.effective_target_cpa_source, ad_group.effective_target_roas_source,
  ad_group.resource_name, ad_group.tracking_url_template: string
  ad_group.cpc_bid_micros, ad_group.cpm_bid_micros, ad_group.cpv_bid_micros,
  ad_group.effective_target_cpa_micros, ad_group.target_cpa_micros: integer
  ad_group.effective_target_roas, ad_group.target_roas: number
  ad_group.labels: array
  metrics.cost_micros: integer
  segments.date: datetime
`;

const adGroupAdFields = fields`
  ad_group.id, ad_group_ad.ad.id: integer
  ad_group_ad.ad.name, ad_group_ad.ad.type, ad_group_ad.ad.display_url,
  ad_group_ad.ad.final_url_suffix, ad_group_ad.ad.tracking_url_template, ad_group_ad.ad.resource_name: string
  ad_group_ad.status: ${t.string({ enum: entityStatus })}
  ad_group_ad.ad_strength, ad_group_ad.ad_group, ad_group_ad.resource_name,
  ad_group_ad.policy_summary.approval_status, ad_group_ad.policy_summary.review_status: string
  segments.date: datetime
  ad_group_ad.ad.final_urls, ad_group_ad.ad.final_mobile_urls, ad_group_ad.labels: array
`;

// The daily reports, each over its fields above.
const accounts = dailyReport('accounts', ['customer', 'segments'], accountFields);
const campaigns = dailyReport('campaigns', ['campaign', 'campaignBudget', 'metrics', 'segments'], campaignFields, {
  list: listParams,
  update: campaignUpdateParams,
});
const adGroups = dailyReport('ad_groups', ['campaign', 'adGroup', 'metrics', 'segments'], adGroupFields, {
  list: listParams,
  update: adGroupUpdateParams,
});
const adGroupAds = dailyReport('ad_group_ads', ['adGroup', 'adGroupAd', 'segments'], adGroupAdFields);

/**
 * A label's association with a campaign, ad group or ad: the row holds the parent, the association and the label
 * (`{campaign, campaignLabel, label}`), keyed by the association's resource name; searchable by the parent's id,
 * the association's resource name and the label's id, name and resource name.
 */
function labelAssociation(spec: {
  name: string;
  /** The parent's object in the row, and its id's search path. */
  parent: readonly [string, string];
  /** The association's object in the row, and its resource's name in GAQL. */
  association: readonly [string, string];
  create?: ParamsSchema;
}): EntityCatalog {
  const [parent, parentId] = spec.parent;
  const [association, resource] = spec.association;
  return {
    name: spec.name,
    recordKey: `${association}.resourceName`,
    record: plain({ [parent]: t.object(), [association]: t.object(), label: t.object() }),
    meta,
    searchable: plain({
      [parentId]: t.integer(),
      [`${resource}.resource_name`]: t.string(),
      'label.id': t.integer(),
      'label.name': t.string(),
      'label.resource_name': t.string(),
    }),
    actions: spec.create ? { list: listParams, create: spec.create } : { list: listParams },
    sync: fullRefresh,
  };
}

const campaignLabels = labelAssociation({
  name: 'campaign_labels',
  parent: ['campaign', 'campaign.id'],
  association: ['campaignLabel', 'campaign_label'],
  create: campaignLabelCreateParams,
});

// Searchable fields of ad_group_labels: the campaign_labels list transposed to the
// vendor's ad_group_label resource (ad_group.id, ad_group_label.resource_name, label.*).
const adGroupLabels = labelAssociation({
  name: 'ad_group_labels',
  parent: ['adGroup', 'ad_group.id'],
  association: ['adGroupLabel', 'ad_group_label'],
  create: adGroupLabelCreateParams,
});

// Record and searchable fields of ad_group_ad_labels: the vendor's ad_group_ad_label
// resource (SELECT ad_group_ad.ad.id, ad_group_ad_label.resource_name, label.id, label.name, label.resource_name).
const adGroupAdLabels = labelAssociation({
  name: 'ad_group_ad_labels',
  parent: ['adGroupAd', 'ad_group_ad.ad.id'],
  association: ['adGroupAdLabel', 'ad_group_ad_label'],
});

// Record fields of labels: the vendor's label resource
// (label.id, label.name, label.resource_name, label.status, label.text_label.{background_color,description}).
// The catalog lists no search for labels, so it is live-only (no sync).
const labels: EntityCatalog = {
  name: 'labels',
  recordKey: 'label.resourceName',
  record: plain(fields`label: object`),
  meta,
  actions: { list: listParams, create: labelCreateParams },
};

// customers:listAccessibleCustomers answers one object {resourceNames: ["customers/1234567890", ...]}: a single
// record, not paginated. The catalog types resourceNames as an array of objects; the upstream items are strings, so
// the item type is left open. Not replicated, so the record key is only nominal.
const accessibleCustomers: EntityCatalog = {
  name: 'accessible_customers',
  recordKey: 'resourceNames',
  record: plain(fields`resourceNames: array`),
  actions: { list: z.strictObject({}) },
};

// ---------------------------------------------------------------------------------------------------------------
// Credentials and configuration
// ---------------------------------------------------------------------------------------------------------------

/**
 * OAuth 2.0 with refresh (access tokens live one hour, so a refresh token and its client are required; an
 * access_token may be given as the initial cached token) plus the developer token every call sends.
 * login_customer_id: the manager account (10 digits) when calls go through a manager.
 */
const credentials = z.strictObject({
  developer_token: z.string().min(1),
  refresh_token: z.string().min(1),
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  access_token: z.string().min(1).optional(),
  login_customer_id: customerIdSchema.optional(),
});

/**
 * Where the customer ids to replicate live: in the connector CONFIG, not in replication_config, because the
 * connector's replication read receives `config` (ConnectorContext) but not replication_config, and live actions
 * take customer_id per call anyway. When omitted (e.g. a connector created by the OAuth consent flow, which carries
 * no config), replication reads every customer that customers:listAccessibleCustomers returns.
 */
const config = z.strictObject({
  customer_ids: z
    .array(customerIdSchema)
    .min(1)
    .refine((ids) => new Set(ids).size === ids.length, 'customer ids must be unique')
    .optional(),
});

export const googleAdsCatalog = defineCatalog({
  connectorType: 'Google-Ads',
  copyVersion: {
    by: 'read_instant',
    why: 'Report rows are recomputed on each GAQL query and carry no version of their own; resources have no modification counter.',
    source: 'https://developers.google.com/google-ads/api/docs/query/overview',
  },
  rateLimit: {
    perSecond: null,
    scope:
      'token bucket per customer id and per Cloud project, varying with server load (RESOURCE_EXHAUSTED, retryDelay)',
    source: 'https://developers.google.com/google-ads/api/docs/productionize/rate-limits',
  },
  purpose: 'search advertising',
  auth: {
    ...GOOGLE_OAUTH,
    consent: {
      ...GOOGLE_CONSENT,
      scopes: ['https://www.googleapis.com/auth/adwords'],
      // Every Google Ads call also sends the platform's developer token (OAUTH_DEVELOPER_TOKEN_GOOGLE_ADS).
      credentials: { ...REFRESHING_CREDENTIALS, developer_token: { from: 'env', name: 'DEVELOPER_TOKEN' } },
    },
  },
  credentials,
  replicationConfig: startDateReplicationConfig,
  config,
  entities: {
    accounts,
    campaigns,
    ad_groups: adGroups,
    ad_group_ads: adGroupAds,
    campaign_labels: campaignLabels,
    ad_group_labels: adGroupLabels,
    ad_group_ad_labels: adGroupAdLabels,
    labels,
    accessible_customers: accessibleCustomers,
  },
});
