import { hexId, instantBetween, int, pick, type SeededDataOptions, seededRandom } from '../kit/random.ts';

export type SnapRecord = Record<string, unknown> & { id: string; created_at: string; updated_at: string };

/** The plural collection names of the Snap Marketing API, as they appear in paths and envelopes. */
export const AD_ACCOUNT_CHILDREN = ['campaigns', 'adsquads', 'ads', 'creatives', 'media', 'segments'] as const;
export type AdAccountChild = (typeof AD_ACCOUNT_CHILDREN)[number];
export type SnapCollection = 'organizations' | 'adaccounts' | AdAccountChild;

/** The key of one object of a collection in Snap's envelopes: the plural without its `s` (`media` stays `media`). */
export function singular(collection: SnapCollection): string {
  return collection === 'media' ? collection : collection.slice(0, -1);
}

export type SnapData = Record<SnapCollection, SnapRecord[]>;

export interface SnapDataOptions extends SeededDataOptions {
  organizations?: number;
  adAccountsPerOrganization?: number;
  /** Campaigns, creatives and media per ad account; ad squads, ads and segments follow. */
  perAdAccount?: number;
}

const STATES = ['ACTIVE', 'PAUSED'] as const;
const OBJECTIVES = ['BRAND_AWARENESS', 'APP_INSTALL', 'WEB_VIEW', 'VIDEO_VIEW', 'LEAD_GENERATION'];

function uuid(random: () => number): string {
  const h = hexId(random, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Deterministic Snap-shaped data (https://developers.snap.com/api/marketing-api/Ads-API/): same options, same records. */
export function generateSnapData(options: SnapDataOptions = {}): SnapData {
  const random = seededRandom(options.seed ?? 7);
  const from = options.from ?? '2023-01-01T00:00:00Z';
  const to = options.to ?? '2025-06-30T00:00:00Z';
  const stamps = (): { created_at: string; updated_at: string } => {
    const created = instantBetween(random, from, to);
    const updated = Math.min(created + int(random, 0, 120) * 86_400_000 + int(random, 0, 999), Date.parse(to));
    return { created_at: new Date(created).toISOString(), updated_at: new Date(updated).toISOString() };
  };
  const data: SnapData = {
    organizations: [],
    adaccounts: [],
    campaigns: [],
    adsquads: [],
    ads: [],
    creatives: [],
    media: [],
    segments: [],
  };
  const add: AddRecord = (collection, fields) => {
    const id = uuid(random);
    data[collection].push({ id, ...stamps(), ...fields(id) });
    return id;
  };
  const per = options.perAdAccount ?? 12;
  for (let o = 0; o < (options.organizations ?? 2); o++) {
    const orgId = add('organizations', () => ({
      name: `${pick(random, ['Acme', 'Globex', 'Initech', 'Hooli'])} Org ${o}`,
      type: 'ENTERPRISE',
      state: 'ACTIVE',
      address_line_1: `${o + 1} Market St`,
      administrative_district_level_1: 'US-CA',
      locality: 'San Francisco',
      postal_code: '94105',
      country: 'US',
      contact_name: `Contact ${o}`,
      contact_email: `ads${o}@example.com`,
      contact_phone: '+15555550100',
      contact_phone_optin: random() < 0.5,
      accepted_term_version: '8',
      configuration_settings: { notifications_enabled: true },
      my_display_name: 'Test User',
      my_invited_email: 'user@example.com',
      my_member_id: uuid(random),
      roles: ['admin'],
      createdByCaller: false,
      is_agency: random() < 0.3,
      verification_request_id: uuid(random),
      demand_source: 'SELF_SERVE',
    }));
    for (let a = 0; a < (options.adAccountsPerOrganization ?? 2); a++) {
      const accountId = add('adaccounts', () => ({
        name: `Ad account ${o}-${a}`,
        type: 'PARTNER',
        status: pick(random, STATES),
        organization_id: orgId,
        advertiser_organization_id: orgId,
        currency: pick(random, ['USD', 'EUR']),
        timezone: pick(random, ['America/Los_Angeles', 'Europe/Paris']),
        billing_type: 'IO',
        billing_center_id: uuid(random),
        agency_representing_client: false,
        client_paying_invoices: false,
        funding_source_ids: [uuid(random)],
        regulations: { restricted_delivery_signals: false },
      }));
      fillAccount(add, random, accountId, orgId, per);
    }
  }
  return data;
}

/** Adds a record to `collection`: a new id and timestamps, then `fields` (drawn after them, so the seed decides). */
type AddRecord = (collection: SnapCollection, fields: (id: string) => Record<string, unknown>) => string;

function fillAccount(add: AddRecord, random: () => number, accountId: string, orgId: string, per: number): void {
  const mediaIds = Array.from({ length: per }, (_, i) =>
    add('media', (id) => ({
      name: `Media ${i}`,
      type: pick(random, ['VIDEO', 'IMAGE']),
      ad_account_id: accountId,
      media_status: 'READY',
      file_name: `media-${i}.mp4`,
      hash: hexId(random, 32),
      download_link: `https://storage.example/media/${id}`,
      visibility: 'VISIBLE',
      file_size_in_bytes: int(random, 10_000, 9_000_000),
      duration_in_seconds: int(random, 3, 60),
      is_demo_media: false,
      media_usages: ['TOP_SNAP'],
      image_metadata: null,
      video_metadata: { width_px: 1080, height_px: 1920 },
    })),
  );
  const creativeIds = Array.from({ length: per }, (_, i) =>
    add('creatives', () => ({
      name: `Creative ${i}`,
      type: 'SNAP_AD',
      ad_account_id: accountId,
      ad_product: 'SNAP_AD',
      brand_name: 'Acme',
      call_to_action: pick(random, ['INSTALL_NOW', 'SHOP_NOW', 'WATCH']),
      headline: `Headline ${i}`,
      render_type: 'STATIC',
      review_status: pick(random, ['APPROVED', 'PENDING_REVIEW']),
      review_status_details: '',
      forced_view_eligibility: 'NONE',
      packaging_status: 'SUCCESS',
      top_snap_crop_position: 'MIDDLE',
      top_snap_media_id: pick(random, mediaIds),
      shareable: random() < 0.5,
      ad_to_place_properties: null,
      web_view_properties: { url: 'https://example.com' },
    })),
  );
  for (let i = 0; i < per; i++) {
    const campaignId = add('campaigns', () => ({
      name: `Campaign ${i}`,
      ad_account_id: accountId,
      status: pick(random, STATES),
      objective: pick(random, OBJECTIVES),
      buy_model: 'AUCTION',
      creation_state: 'PUBLISHED',
      start_time: new Date(Date.parse('2023-01-01T00:00:00Z') + i * 86_400_000).toISOString(),
      delivery_status: ['VALID'],
      objective_v2_properties: { objective_v2_type: 'AWARENESS_AND_ENGAGEMENT' },
      pacing_properties_version: 1,
    }));
    const squadId = add('adsquads', () => ({
      name: `Ad squad ${i}`,
      type: 'SNAP_ADS',
      campaign_id: campaignId,
      status: pick(random, STATES),
      bid_strategy: 'AUTO_BID',
      billing_event: 'IMPRESSION',
      child_ad_type: 'REMOTE_WEBPAGE',
      creation_state: 'PUBLISHED',
      delivery_constraint: 'DAILY_BUDGET',
      end_time: null,
      start_time: '2023-01-01T00:00:00.000Z',
      forced_view_setting: 'NONE',
      optimization_goal: 'IMPRESSIONS',
      pacing_type: 'STANDARD',
      placement: 'UNSUPPORTED',
      targeting_reach_status: 'VALID',
      auto_bid: true,
      target_bid: false,
      daily_budget_micro: int(random, 20, 500) * 1_000_000,
      lifetime_budget_micro: null,
      delivery_properties_version: 1,
      delivery_status: ['VALID'],
      targeting: { geos: [{ country_code: 'us' }] },
      provider_adnetwork_properties: null,
      event_sources: null,
      ad_account_id: accountId,
    }));
    add('ads', () => ({
      name: `Ad ${i}`,
      type: 'REMOTE_WEBPAGE',
      ad_squad_id: squadId,
      creative_id: pick(random, creativeIds),
      status: pick(random, STATES),
      render_type: 'STATIC',
      review_status: 'APPROVED',
      review_status_reasons: [],
      delivery_status: ['VALID'],
      ad_account_id: accountId,
    }));
  }
  for (let i = 0; i < Math.ceil(per / 3); i++) {
    add('segments', () => ({
      name: `Audience ${i}`,
      description: `Seed list ${i}`,
      ad_account_id: accountId,
      source_ad_account_id: accountId,
      organization_id: orgId,
      status: 'ACTIVE',
      source_type: 'FIRST_PARTY',
      targetable_status: pick(random, ['READY', 'NOT_READY']),
      upload_status: 'COMPLETE',
      retention_in_days: 180,
      approximate_number_users: int(random, 1000, 900_000),
      visible_to: [`AdAccountEntity_${accountId}`],
    }));
  }
}
