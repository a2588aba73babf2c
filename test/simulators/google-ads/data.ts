import { int, pick, type SeededDataOptions, seededRandom } from '../kit/random.ts';

export type AdsObject = Record<string, unknown> & { resourceName: string };

/** One day of activity of a campaign, ad group or ad (int64 counters kept as numbers here, sent as strings). */
export interface DayStat {
  readonly date: string;
  readonly clicks: number;
  readonly impressions: number;
  readonly costMicros: number;
  readonly interactions: number;
  readonly conversions: number;
  readonly conversionsValue: number;
}

/** The simulated Google Ads state: resources in the API's camelCase JSON shape, keyed by resource name. */
export interface GoogleAdsData {
  readonly managerId: string;
  readonly customers: AdsObject[];
  readonly budgets: AdsObject[];
  readonly campaigns: AdsObject[];
  readonly adGroups: AdsObject[];
  readonly adGroupAds: AdsObject[];
  readonly labels: AdsObject[];
  readonly campaignLabels: AdsObject[];
  readonly adGroupLabels: AdsObject[];
  readonly adGroupAdLabels: AdsObject[];
  /** Daily stats by resource name (campaigns, ad groups, ads). */
  readonly stats: Map<string, DayStat[]>;
}

/** Days with activity fall between `from` and `to`. */
export interface GoogleAdsDataOptions extends SeededDataOptions {
  /** Campaigns per customer; ad groups and ads scale with it (two of each per parent). */
  campaignsPerCustomer?: number;
  customers?: number;
}

const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const THEMES = ['Brand', 'Generic', 'Competitor', 'Retargeting', 'Shopping', 'Display', 'Video', 'Local'];
const CHANNELS = ['SEARCH', 'DISPLAY', 'SHOPPING', 'VIDEO'];

/** Ten-digit customer id (no dashes, as the API writes it). */
function customerId(random: () => number): string {
  return String(int(random, 1_000_000_000, 9_999_999_999));
}

/** Deterministic Google Ads-shaped data (https://developers.google.com/google-ads/api/fields/v23/overview). */
export function generateGoogleAdsData(options: GoogleAdsDataOptions = {}): GoogleAdsData {
  const random = seededRandom(options.seed ?? 11);
  const from = Date.parse(options.from ?? '2024-03-01T00:00:00Z');
  const to = Date.parse(options.to ?? '2024-12-20T00:00:00Z');
  const perCustomer = options.campaignsPerCustomer ?? 8;
  let nextId = 1000;
  const id = () => String(nextId++ * 7 + int(random, 0, 6));
  const data: GoogleAdsData = {
    managerId: customerId(random),
    customers: [],
    budgets: [],
    campaigns: [],
    adGroups: [],
    adGroupAds: [],
    labels: [],
    campaignLabels: [],
    adGroupLabels: [],
    adGroupAdLabels: [],
    stats: new Map(),
  };
  const dailyStats = (days: string[], scale: number): DayStat[] =>
    days.map((date) => {
      const impressions = int(random, 50, 5000) * scale;
      const clicks = Math.floor(impressions * (0.01 + random() * 0.08));
      return {
        date,
        impressions,
        clicks,
        interactions: clicks,
        costMicros: clicks * int(random, 200_000, 2_500_000),
        conversions: Math.round(clicks * random() * 0.2 * 100) / 100,
        conversionsValue: Math.round(clicks * random() * 40 * 100) / 100,
      };
    });
  /** Adds a campaign, ad group or ad with its activity; with `labelChance`, links one of the customer's labels. */
  const place = (
    kind: keyof typeof LINKS,
    target: AdsObject,
    stats: DayStat[],
    labelChance: number,
    labels: readonly AdsObject[],
  ) => {
    data[LINKS[kind].targets].push(target);
    data.stats.set(target.resourceName, stats);
    if (random() < labelChance) linkLabel(data, kind, target, pick(random, labels));
  };

  for (let c = 0; c < (options.customers ?? 2); c++) {
    const cid = customerId(random);
    const base = `customers/${cid}`;
    data.customers.push({
      resourceName: base,
      id: cid,
      descriptiveName: `${pick(random, ['Acme', 'Globex', 'Initech'])} Ads ${c + 1}`,
      currencyCode: pick(random, ['USD', 'EUR', 'GBP']),
      timeZone: pick(random, ['America/New_York', 'Europe/Paris', 'Europe/London']),
      autoTaggingEnabled: random() < 0.7,
      hasPartnersBadge: false,
      manager: false,
      testAccount: false,
      optimizationScore: Math.round(random() * 1000) / 1000,
      optimizationScoreWeight: Math.round(random() * 10_000) / 100,
      trackingUrlTemplate: '{lpurl}?src=ads',
      finalUrlSuffix: 'utm_source=google',
      payPerConversionEligibilityFailureReasons: ['NOT_ENOUGH_CONVERSIONS'],
      callReportingSetting: {
        callReportingEnabled: true,
        callConversionReportingEnabled: false,
        callConversionAction: `${base}/conversionActions/${id()}`,
      },
      conversionTrackingSetting: { conversionTrackingId: id(), crossAccountConversionTrackingId: id() },
      remarketingSetting: { googleGlobalSiteTag: "<script async src='https://tag.example/gtag.js'></script>" },
    });
    const labels = ['Q4', 'Evergreen', 'Test', 'Priority'].map((name) => {
      const labelId = id();
      return {
        resourceName: `${base}/labels/${labelId}`,
        id: labelId,
        name,
        status: 'ENABLED',
        textLabel: { backgroundColor: pick(random, ['#ff0000', '#00ff00', '#0000ff']), description: `${name} items` },
      } satisfies AdsObject;
    });
    data.labels.push(...labels);
    for (let k = 0; k < perCustomer; k++) {
      const start = from + Math.floor(random() * ((to - from) / DAY - 25)) * DAY;
      const days = Array.from({ length: int(random, 5, 20) }, (_, d) => day(start + d * DAY));
      const budgetId = id();
      const budget = {
        resourceName: `${base}/campaignBudgets/${budgetId}`,
        id: budgetId,
        amountMicros: String(int(random, 5, 500) * 1_000_000),
      };
      data.budgets.push(budget);
      const campaignId = id();
      const campaignName = `${pick(random, THEMES)} campaign ${c + 1}.${k + 1}`;
      const campaign: AdsObject = {
        resourceName: `${base}/campaigns/${campaignId}`,
        id: campaignId,
        name: campaignName,
        status: pick(random, ['ENABLED', 'ENABLED', 'PAUSED', 'REMOVED']),
        servingStatus: 'SERVING',
        advertisingChannelType: pick(random, CHANNELS),
        advertisingChannelSubType: 'UNSPECIFIED',
        biddingStrategyType: pick(random, ['MANUAL_CPC', 'TARGET_CPA', 'MAXIMIZE_CONVERSIONS']),
        campaignBudget: budget.resourceName,
        startDate: days[0],
        endDate: '2037-12-30',
        labels: [] as string[],
        networkSettings: {
          targetGoogleSearch: true,
          targetSearchNetwork: random() < 0.5,
          targetContentNetwork: random() < 0.3,
          targetPartnerSearchNetwork: false,
        },
      };
      place('campaign', campaign, dailyStats(days, 4), 0.6, labels);
      for (let g = 0; g < 2; g++) {
        const adGroupId = id();
        const adGroup: AdsObject = {
          resourceName: `${base}/adGroups/${adGroupId}`,
          id: adGroupId,
          name: `${campaignName} / group ${g + 1}`,
          status: pick(random, ['ENABLED', 'PAUSED']),
          type: 'SEARCH_STANDARD',
          adRotationMode: 'OPTIMIZE',
          campaign: campaign.resourceName,
          baseAdGroup: `${base}/adGroups/${adGroupId}`,
          cpcBidMicros: String(int(random, 1, 40) * 100_000),
          cpmBidMicros: '0',
          cpvBidMicros: '0',
          targetCpaMicros: '0',
          effectiveTargetCpaMicros: '0',
          effectiveTargetCpaSource: 'UNSPECIFIED',
          targetRoas: 0,
          effectiveTargetRoas: 0,
          effectiveTargetRoasSource: 'UNSPECIFIED',
          trackingUrlTemplate: '',
          labels: [] as string[],
        };
        place('adGroup', adGroup, dailyStats(days, 2), 0.4, labels);
        for (let a = 0; a < 2; a++) {
          const adId = id();
          const ad: AdsObject = {
            resourceName: `${base}/adGroupAds/${adGroupId}~${adId}`,
            status: pick(random, ['ENABLED', 'PAUSED', 'REMOVED']),
            adStrength: pick(random, ['POOR', 'AVERAGE', 'GOOD', 'EXCELLENT']),
            adGroup: adGroup.resourceName,
            labels: [] as string[],
            policySummary: { approvalStatus: 'APPROVED', reviewStatus: 'REVIEWED' },
            ad: {
              resourceName: `${base}/ads/${adId}`,
              id: adId,
              name: `Ad ${a + 1} of ${String(adGroup.name)}`,
              type: 'RESPONSIVE_SEARCH_AD',
              displayUrl: 'example.com/offers',
              finalUrls: [`https://example.com/landing/${adId}`],
              finalMobileUrls: [],
              finalUrlSuffix: '',
              trackingUrlTemplate: '',
            },
          };
          place('adGroupAd', ad, dailyStats(days, 1), 0.3, labels);
        }
      }
    }
  }
  return data;
}

/** The resources labels attach to: where they are kept, and where their label links are. */
const LINKS = {
  campaign: { targets: 'campaigns', list: 'campaignLabels', collection: 'campaignLabels' },
  adGroup: { targets: 'adGroups', list: 'adGroupLabels', collection: 'adGroupLabels' },
  adGroupAd: { targets: 'adGroupAds', list: 'adGroupAdLabels', collection: 'adGroupAdLabels' },
} as const;

/** The last path segment of a resource name: the id (`123`, or `12~34` for composite resources). */
export function idOf(resourceName: string): string {
  return resourceName.slice(resourceName.lastIndexOf('/') + 1);
}

/**
 * Attaches `label` to `target` the way the API does: an association resource named
 * `customers/<cid>/<collection>/<target id>~<label id>`, and the label in the target's `labels` array.
 */
export function linkLabel(
  data: GoogleAdsData,
  kind: keyof typeof LINKS,
  target: AdsObject,
  label: AdsObject,
): AdsObject | null {
  const { list, collection } = LINKS[kind];
  const cid = /^customers\/(\d+)\//.exec(target.resourceName)?.[1];
  const resourceName = `customers/${cid}/${collection}/${idOf(target.resourceName)}~${String(label.id)}`;
  if (data[list].some((l) => l.resourceName === resourceName)) return null;
  const link: AdsObject = { resourceName, [kind]: target.resourceName, label: label.resourceName };
  data[list].push(link);
  (target.labels as string[]).push(label.resourceName);
  return link;
}
