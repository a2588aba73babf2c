import type { AdsObject, DayStat, GoogleAdsData } from './data.ts';
import { compare, GaqlError, type GaqlQuery, project, satisfies, valueAt } from './gaql.ts';

type Context = Record<string, AdsObject>;

interface ResourceSpec {
  /** The resources a row of this FROM carries (snake_case GAQL names → camelCase JSON keys). */
  readonly attributed: Readonly<Record<string, string>>;
  readonly rows: (data: GoogleAdsData, cid: string) => Context[];
  /** Whose daily stats give `metrics` and `segments.date` (none: the resource has no metrics). */
  readonly statsOf?: (context: Context, data: GoogleAdsData) => DayStat[];
}

const ofCustomer = (cid: string) => (o: AdsObject) => o.resourceName.startsWith(`customers/${cid}/`);
const byName = (list: readonly AdsObject[], name: unknown) => list.find((o) => o.resourceName === name);

function contextOf(data: GoogleAdsData, cid: string, parts: Partial<Context>): Context {
  const context: Context = { customer: byName(data.customers, `customers/${cid}`)! };
  for (const [key, value] of Object.entries(parts)) if (value) context[key] = value;
  if (context.adGroupAd && !context.adGroup) context.adGroup = byName(data.adGroups, context.adGroupAd.adGroup)!;
  if (context.adGroup && !context.campaign) context.campaign = byName(data.campaigns, context.adGroup.campaign)!;
  return context;
}

/** Sums the daily stats of every campaign of a customer, per day (the customer resource's metrics). */
function customerStats(data: GoogleAdsData, cid: string): DayStat[] {
  const byDay = new Map<string, DayStat>();
  for (const campaign of data.campaigns.filter(ofCustomer(cid))) {
    for (const s of data.stats.get(campaign.resourceName) ?? []) {
      const prev = byDay.get(s.date);
      byDay.set(s.date, prev ? sum([prev, s], s.date) : s);
    }
  }
  return [...byDay.values()].sort((a, b) => a.date.localeCompare(b.date));
}

function sum(stats: readonly DayStat[], date: string): DayStat {
  const total = (k: keyof Omit<DayStat, 'date'>) => stats.reduce((acc, s) => acc + s[k], 0);
  return {
    date,
    clicks: total('clicks'),
    impressions: total('impressions'),
    costMicros: total('costMicros'),
    interactions: total('interactions'),
    conversions: Math.round(total('conversions') * 100) / 100,
    conversionsValue: Math.round(total('conversionsValue') * 100) / 100,
  };
}

const SEGMENTS = new Set(['segments.date', 'segments.hour', 'segments.ad_network_type']);
/** The networks a day's traffic is split over when `segments.ad_network_type` is selected (AdNetworkType enum). */
const NETWORKS = ['SEARCH', 'CONTENT'] as const;

/**
 * The record key (the connector's `_row_key`) of each row a replicated day of a campaign becomes: the resource
 * name, then every segment in alphabetical order of its JSON name.
 */
export function campaignDayKeys(resourceName: string, stat: DayStat): string[] {
  return segmentParts(stat, true, true).map(
    ({ segments }) =>
      `${resourceName}|adNetworkType=${String(segments.adNetworkType)}|date=${stat.date}|hour=${String(segments.hour)}`,
  );
}

/**
 * Selecting `segments.hour` or `segments.ad_network_type` splits a row per hour of the day and per network, as the
 * API does (https://developers.google.com/google-ads/api/fields/v20/segments): here a day's activity falls in three
 * hours (which ones depends on the date) on each of two networks, and the parts add up to the day exactly.
 */
export function segmentParts(
  stat: DayStat,
  byHour: boolean,
  byNetwork: boolean,
): { stat: DayStat; segments: Record<string, unknown> }[] {
  const day = Number(stat.date.slice(8, 10)) || 0;
  const hours = byHour ? [day % 8, 8 + (day % 7), 15 + (day % 9)] : [undefined];
  const networks = byNetwork ? NETWORKS : [undefined];
  const count = hours.length * networks.length;
  const parts: { stat: DayStat; segments: Record<string, unknown> }[] = [];
  let index = 0;
  for (const hour of hours) {
    for (const network of networks) {
      parts.push({
        stat: share(stat, index++, count),
        segments: {
          ...(hour === undefined ? {} : { hour }),
          ...(network === undefined ? {} : { adNetworkType: network }),
        },
      });
    }
  }
  return parts;
}

/** Part `index` of `count` of a day's counters: integers split with the remainder on the first parts, cents too. */
function share(stat: DayStat, index: number, count: number): DayStat {
  if (count === 1) return stat;
  const split = (total: number) => Math.floor(total / count) + (index < total % count ? 1 : 0);
  const splitCents = (total: number) => split(Math.round(total * 100)) / 100;
  return {
    date: stat.date,
    clicks: split(stat.clicks),
    impressions: split(stat.impressions),
    costMicros: split(stat.costMicros),
    interactions: split(stat.interactions),
    conversions: splitCents(stat.conversions),
    conversionsValue: splitCents(stat.conversionsValue),
  };
}

/** Metrics in the REST JSON shape: int64 counters as strings, doubles as numbers. */
function metricsOf(s: DayStat): Record<string, unknown> {
  return {
    clicks: String(s.clicks),
    impressions: String(s.impressions),
    costMicros: String(s.costMicros),
    interactions: String(s.interactions),
    conversions: s.conversions,
    conversionsValue: s.conversionsValue,
    ctr: s.impressions ? s.clicks / s.impressions : 0,
    averageCpc: s.clicks ? s.costMicros / s.clicks : 0,
    averageCpm: s.impressions ? (s.costMicros / s.impressions) * 1000 : 0,
  };
}

/**
 * A `<owner>_label` resource: rows of the owner's label links, each with the link, its owner (and the owner's
 * parents) and the label. It has no metrics.
 */
function labelLinks(owner: 'campaign' | 'adGroup' | 'adGroupAd', attributed: Record<string, string>): ResourceSpec {
  const link = `${owner}Label` as const;
  return {
    attributed,
    rows: (data, cid) =>
      data[`${link}s`].filter(ofCustomer(cid)).map((label) =>
        contextOf(data, cid, {
          [link]: label,
          [owner]: byName(data[`${owner}s`], label[owner]),
          label: byName(data.labels, label.label),
        }),
      ),
  };
}

const RESOURCES: Readonly<Record<string, ResourceSpec>> = {
  customer: {
    attributed: { customer: 'customer' },
    rows: (data, cid) => [contextOf(data, cid, {})],
    statsOf: (context, data) => customerStats(data, String(context.customer!.id)),
  },
  campaign: {
    attributed: { customer: 'customer', campaign: 'campaign', campaign_budget: 'campaignBudget' },
    rows: (data, cid) =>
      data.campaigns
        .filter(ofCustomer(cid))
        .map((campaign) =>
          contextOf(data, cid, { campaign, campaignBudget: byName(data.budgets, campaign.campaignBudget) }),
        ),
    statsOf: (context, data) => data.stats.get(context.campaign!.resourceName) ?? [],
  },
  ad_group: {
    attributed: { customer: 'customer', campaign: 'campaign', ad_group: 'adGroup' },
    rows: (data, cid) => data.adGroups.filter(ofCustomer(cid)).map((adGroup) => contextOf(data, cid, { adGroup })),
    statsOf: (context, data) => data.stats.get(context.adGroup!.resourceName) ?? [],
  },
  ad_group_ad: {
    attributed: { customer: 'customer', campaign: 'campaign', ad_group: 'adGroup', ad_group_ad: 'adGroupAd' },
    rows: (data, cid) =>
      data.adGroupAds.filter(ofCustomer(cid)).map((adGroupAd) => contextOf(data, cid, { adGroupAd })),
    statsOf: (context, data) => data.stats.get(context.adGroupAd!.resourceName) ?? [],
  },
  campaign_label: labelLinks('campaign', {
    customer: 'customer',
    campaign: 'campaign',
    campaign_label: 'campaignLabel',
    label: 'label',
  }),
  ad_group_label: labelLinks('adGroup', {
    customer: 'customer',
    campaign: 'campaign',
    ad_group: 'adGroup',
    ad_group_label: 'adGroupLabel',
    label: 'label',
  }),
  ad_group_ad_label: labelLinks('adGroupAd', {
    customer: 'customer',
    ad_group: 'adGroup',
    ad_group_ad: 'adGroupAd',
    ad_group_ad_label: 'adGroupAdLabel',
    label: 'label',
  }),
  label: {
    attributed: { customer: 'customer', label: 'label' },
    rows: (data, cid) => data.labels.filter(ofCustomer(cid)).map((label) => contextOf(data, cid, { label })),
  },
};

/**
 * The rows `googleAds:search` answers for `query` on customer `cid`. Selecting `segments.date` gives one row per
 * resource and day with activity (and needs a date condition, as the API requires a finite date range); without
 * it, metrics are summed over the days the date conditions allow.
 */
export function runQuery(data: GoogleAdsData, cid: string, query: GaqlQuery): Record<string, unknown>[] {
  const spec = RESOURCES[query.resource];
  if (!spec) throw new GaqlError('INVALID_RESOURCE_NAME', `Invalid resource name in FROM clause: '${query.resource}'.`);
  const allowed = new Set([...Object.keys(spec.attributed), ...(spec.statsOf ? ['metrics', 'segments'] : [])]);
  for (const field of [
    ...query.fields,
    ...query.conditions.map((c) => c.field),
    ...query.orderBy.map((o) => o.field),
  ]) {
    const prefix = field.split('.')[0]!;
    if (!allowed.has(prefix)) {
      throw new GaqlError(
        'PROHIBITED_RESOURCE_TYPE_IN_SELECT_CLAUSE',
        `'${field}' cannot be selected with resource '${query.resource}'.`,
      );
    }
    if (prefix === 'segments' && !SEGMENTS.has(field)) {
      throw new GaqlError('UNRECOGNIZED_FIELD', `The simulator supports ${[...SEGMENTS].join(', ')}, not '${field}'.`);
    }
  }
  const dateConditions = query.conditions.filter((c) => c.field === 'segments.date');
  const others = query.conditions.filter((c) => c.field !== 'segments.date');
  const byDate = query.fields.includes('segments.date');
  if (byDate && dateConditions.length === 0) {
    throw new GaqlError('DATE_RANGE_REQUIRED', 'segments.date in the SELECT clause requires a date filter in WHERE.');
  }
  const dayOk = (s: DayStat) => dateConditions.every((c) => satisfies(s.date, c));
  const byHour = query.fields.includes('segments.hour');
  const byNetwork = query.fields.includes('segments.ad_network_type');
  const full: Record<string, unknown>[] = [];
  for (const context of spec.rows(data, cid)) {
    const days = spec.statsOf ? spec.statsOf(context, data).filter(dayOk) : [];
    if (!spec.statsOf) {
      full.push({ ...context });
      continue;
    }
    for (const stat of byDate ? days : [sum(days, '')]) {
      for (const part of segmentParts(stat, byHour, byNetwork)) {
        const segments = { ...(byDate ? { date: stat.date } : {}), ...part.segments };
        full.push({ ...context, metrics: metricsOf(part.stat), ...(Object.keys(segments).length ? { segments } : {}) });
      }
    }
  }
  let rows = full.filter((row) => others.every((c) => satisfies(valueAt(row, c.field), c)));
  if (query.orderBy.length > 0) {
    rows = rows
      .map((row, index) => ({ row, index }))
      .sort((a, b) => {
        for (const { field, desc } of query.orderBy) {
          const diff = compare(valueAt(a.row, field), String(valueAt(b.row, field) ?? ''));
          if (diff !== 0) return desc ? -diff : diff;
        }
        return a.index - b.index;
      })
      .map(({ row }) => row);
  }
  if (query.limit !== null) rows = rows.slice(0, query.limit);
  return rows.map((row) => project(row, query.fields));
}
