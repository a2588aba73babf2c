/**
 * The GAQL report behind each entity (https://developers.google.com/google-ads/api/docs/query/overview).
 * Field lists follow the catalog's searchable fields, in the vendor's names (google_global_site_tag and
 * target_google_search are what the catalog calls provider_global_site_tag and target_provider_search).
 */
export interface EntityQuery {
  /** GAQL resource of the FROM clause. */
  readonly resource: string;
  /** The row's main resource in the REST JSON (camelCase): its resourceName starts the record key. */
  readonly main: string;
  /** Attribute and metric fields; `segments.date` is added where the entity is segmented by day. */
  readonly fields: readonly string[];
  /** Replicated by day windows on segments.date (incremental), or whole (full refresh). */
  readonly byDate: boolean;
  /** Segments replicated beside segments.date: each splits a day's row further (one row per value). */
  readonly segments?: readonly string[];
}

const customer = [
  'customer.auto_tagging_enabled',
  'customer.call_reporting_setting.call_conversion_action',
  'customer.call_reporting_setting.call_conversion_reporting_enabled',
  'customer.call_reporting_setting.call_reporting_enabled',
  'customer.conversion_tracking_setting.conversion_tracking_id',
  'customer.conversion_tracking_setting.cross_account_conversion_tracking_id',
  'customer.currency_code',
  'customer.descriptive_name',
  'customer.final_url_suffix',
  'customer.has_partners_badge',
  'customer.id',
  'customer.manager',
  'customer.optimization_score',
  'customer.optimization_score_weight',
  'customer.pay_per_conversion_eligibility_failure_reasons',
  'customer.remarketing_setting.google_global_site_tag',
  'customer.resource_name',
  'customer.test_account',
  'customer.time_zone',
  'customer.tracking_url_template',
];

const campaign = [
  'campaign.id',
  'campaign.name',
  'campaign.status',
  'campaign.advertising_channel_type',
  'campaign.advertising_channel_sub_type',
  'campaign.bidding_strategy',
  'campaign.bidding_strategy_type',
  'campaign.campaign_budget',
  'campaign.start_date',
  'campaign.end_date',
  'campaign.serving_status',
  'campaign.resource_name',
  'campaign.labels',
  'campaign.network_settings.target_google_search',
  'campaign.network_settings.target_search_network',
  'campaign.network_settings.target_content_network',
  'campaign.network_settings.target_partner_search_network',
  'campaign_budget.amount_micros',
  'metrics.clicks',
  'metrics.cost_micros',
  'metrics.impressions',
  'metrics.interactions',
  'metrics.ctr',
  'metrics.conversions',
  'metrics.conversions_value',
  'metrics.average_cpc',
  'metrics.average_cpm',
];

const adGroup = [
  'campaign.id',
  ...[
    'id',
    'name',
    'status',
    'type',
    'ad_rotation_mode',
    'base_ad_group',
    'campaign',
    'effective_target_cpa_source',
    'effective_target_roas_source',
    'resource_name',
    'tracking_url_template',
    'cpc_bid_micros',
    'cpm_bid_micros',
    'cpv_bid_micros',
    'effective_target_cpa_micros',
    'target_cpa_micros',
    'effective_target_roas',
    'target_roas',
    'labels',
  ].map((f) => `ad_group.${f}`),
  'metrics.cost_micros',
];

const adGroupAd = [
  'ad_group.id',
  ...[
    'id',
    'name',
    'type',
    'display_url',
    'final_url_suffix',
    'tracking_url_template',
    'resource_name',
    'final_urls',
    'final_mobile_urls',
  ].map((f) => `ad_group_ad.ad.${f}`),
  'ad_group_ad.status',
  'ad_group_ad.ad_strength',
  'ad_group_ad.ad_group',
  'ad_group_ad.resource_name',
  'ad_group_ad.policy_summary.approval_status',
  'ad_group_ad.policy_summary.review_status',
  'ad_group_ad.labels',
];

const label = ['label.id', 'label.name', 'label.resource_name'];

export const ENTITY_QUERIES: Readonly<Record<string, EntityQuery>> = {
  accounts: { resource: 'customer', main: 'customer', fields: customer, byDate: true },
  // One record per campaign, day, hour and network, both segments searchable.
  campaigns: {
    resource: 'campaign',
    main: 'campaign',
    fields: campaign,
    byDate: true,
    segments: ['segments.hour', 'segments.ad_network_type'],
  },
  ad_groups: { resource: 'ad_group', main: 'adGroup', fields: adGroup, byDate: true },
  ad_group_ads: { resource: 'ad_group_ad', main: 'adGroupAd', fields: adGroupAd, byDate: true },
  campaign_labels: {
    resource: 'campaign_label',
    main: 'campaignLabel',
    fields: ['campaign.id', 'campaign.resource_name', 'campaign_label.resource_name', ...label],
    byDate: false,
  },
  ad_group_labels: {
    resource: 'ad_group_label',
    main: 'adGroupLabel',
    fields: ['ad_group.id', 'ad_group.resource_name', 'ad_group_label.resource_name', ...label],
    byDate: false,
  },
  ad_group_ad_labels: {
    resource: 'ad_group_ad_label',
    main: 'adGroupAdLabel',
    fields: ['ad_group_ad.ad.id', 'ad_group_ad.resource_name', 'ad_group_ad_label.resource_name', ...label],
    byDate: false,
  },
  labels: {
    resource: 'label',
    main: 'label',
    fields: [...label, 'label.status', 'label.text_label.background_color', 'label.text_label.description'],
    byDate: false,
  },
};

/**
 * The live list's default query: the entity's attributes and metrics without a date segment, i.e. one row per
 * resource with lifetime metrics. GAQL refuses `segments.date` in SELECT without a finite date range in WHERE, and
 * a live list has no range to offer; per-day rows come from the caller's own `query` (or from replication).
 */
export function listQuery(spec: EntityQuery): string {
  return `SELECT ${spec.fields.join(', ')} FROM ${spec.resource}`;
}

/** Replication: one day window (inclusive dates, YYYY-MM-DD) of a date-segmented entity, oldest day first. */
export function windowQuery(spec: EntityQuery, from: string, to: string): string {
  return (
    `SELECT ${[...spec.fields, 'segments.date', ...(spec.segments ?? [])].join(', ')} FROM ${spec.resource} ` +
    `WHERE segments.date BETWEEN '${from}' AND '${to}' ORDER BY segments.date`
  );
}
