import { FaultInjector } from '../kit/faults.ts';
import { kindOptions, type SimulatorHandle, type SimulatorOptions } from '../kit/fixture.ts';
import { listen, type RunningServer } from '../kit/server.ts';
import { API_VERSION, createGoogleAdsApp, type GoogleAdsSimulator, type GoogleAdsSimulatorOptions } from './app.ts';
import { generateGoogleAdsData } from './data.ts';
import { campaignDayKeys } from './rows.ts';

export async function startGoogleAdsSimulator(options: GoogleAdsSimulatorOptions = {}): Promise<GoogleAdsSimulator> {
  const state: Omit<GoogleAdsSimulator, keyof RunningServer> = {
    data: generateGoogleAdsData(options),
    faults: new FaultInjector(),
    developerToken: 'sim-dev-token-Qx81',
    clientId: 'sim-client.apps.googleusercontent.com',
    clientSecret: 'GOCSPX-sim-secret',
    initialRefreshToken: '1//sim-initial-refresh',
    accessToken: 'ya29.sim-long-lived',
    expiredAccessToken: 'ya29.sim-expired',
    refreshes: [],
    searches: [],
  };
  const server = await listen(createGoogleAdsApp(state, options), options.port ?? 0);
  return { ...server, ...state };
}

/** Credentials the simulator accepts: an expired access token (so the first call refreshes) via the manager. */
export function credentialsFor(sim: GoogleAdsSimulator): Record<string, string> {
  return {
    developer_token: sim.developerToken,
    client_id: sim.clientId,
    client_secret: sim.clientSecret,
    refresh_token: sim.initialRefreshToken,
    access_token: sim.expiredAccessToken,
    login_customer_id: sim.data.managerId,
  };
}

export type GoogleAdsHandle = SimulatorHandle & GoogleAdsSimulator;

const cidOf = (resourceName: string) => /^customers\/(\d+)/.exec(resourceName)?.[1] ?? '';

/** The generic handle (kit/fixture.ts) over the Google Ads simulator. */
export async function startGoogleAds(options: SimulatorOptions = {}): Promise<GoogleAdsHandle> {
  const startDate = '2024-07-01T00:00:00Z';
  const sim = await startGoogleAdsSimulator({
    ...kindOptions(options, 'campaignsPerCustomer'),
    ...(options.tokenSecret === undefined ? {} : { tokenSecret: options.tokenSecret }),
    // Rotated-out refresh tokens stay valid a day: every connector built from `credentials` starts from the first.
    refreshGraceMs: 86_400_000,
  });
  const { data } = sim;
  const customerIds = data.customers.map((c) => String(c.id));
  const cid = customerIds[0]!;
  const mine = <T extends { resourceName: string }>(list: readonly T[]) =>
    list.filter((o) => cidOf(o.resourceName) === cid);
  const day = startDate.slice(0, 10);
  const since = (resourceName: string) =>
    (data.stats.get(resourceName) ?? []).filter((s) => s.date >= day).map((s) => `${resourceName}|date=${s.date}`);

  /** A campaign (or ad group) and a label of the first customer that are not linked yet: a create that succeeds. */
  const unlinked = (targets: readonly { resourceName: string; labels?: unknown }[]) => {
    for (const target of mine(targets)) {
      const label = mine(data.labels).find((l) => !(target.labels as string[]).includes(l.resourceName));
      if (label) return { target: target.resourceName, label: label.resourceName };
    }
    throw new Error('every label is linked to every target');
  };
  const campaign = mine(data.campaigns)[0]!;
  const adGroup = mine(data.adGroups)[0]!;
  const list = (entity: string) => ({ entity, action: 'list', params: { customer_id: cid } });

  const handle: Omit<GoogleAdsHandle, 'examples'> = {
    ...sim,
    connectorType: 'Google-Ads',
    baseUrl: `${sim.url}/${API_VERSION}`,
    tokenUrl: `${sim.url}/token`,
    credentials: credentialsFor(sim),
    badCredentials: {
      developer_token: 'revoked-dev-token-0000',
      client_id: sim.clientId,
      client_secret: sim.clientSecret,
      refresh_token: '1//revoked-refresh-0000',
      access_token: 'ya29.bogus-access-0000',
    },
    config: { customer_ids: customerIds },
    replicationConfig: { start_date: startDate },
    expectedKeys: (entity) => {
      switch (entity) {
        case 'accounts':
          return data.customers.flatMap((customer) => {
            const days = new Set(
              data.campaigns
                .filter((c) => cidOf(c.resourceName) === customer.id)
                .flatMap((c) => (data.stats.get(c.resourceName) ?? []).map((s) => s.date))
                .filter((d) => d >= day),
            );
            return [...days].map((d) => `${customer.resourceName}|date=${d}`);
          });
        case 'campaigns':
          // Campaign rows are also segmented by hour and network: several records per campaign and day.
          return data.campaigns.flatMap((c) =>
            (data.stats.get(c.resourceName) ?? [])
              .filter((s) => s.date >= day)
              .flatMap((s) => campaignDayKeys(c.resourceName, s)),
          );
        case 'ad_groups':
          return data.adGroups.flatMap((g) => since(g.resourceName));
        case 'ad_group_ads':
          return data.adGroupAds.flatMap((a) => since(a.resourceName));
        case 'campaign_labels':
          return data.campaignLabels.map((l) => l.resourceName);
        case 'ad_group_labels':
          return data.adGroupLabels.map((l) => l.resourceName);
        case 'ad_group_ad_labels':
          return data.adGroupAdLabels.map((l) => l.resourceName);
        default:
          return [];
      }
    },
  };
  let labelsCreated = 0;
  // A getter: each read picks label pairs that are still unlinked, so the create examples succeed every time.
  return Object.defineProperty(handle, 'examples', {
    enumerable: true,
    get: () => {
      const campaignLink = unlinked(data.campaigns);
      const adGroupLink = unlinked(data.adGroups);
      return [
        list('accounts'),
        { entity: 'campaigns', action: 'list', params: { customer_id: cid, pageSize: 3 } },
        {
          entity: 'campaigns',
          action: 'update',
          params: {
            customer_id: cid,
            operations: [{ updateMask: 'status', update: { resourceName: campaign.resourceName, status: 'ENABLED' } }],
          },
        },
        list('ad_groups'),
        {
          entity: 'ad_groups',
          action: 'update',
          params: {
            customer_id: cid,
            operations: [
              { update: { resourceName: adGroup.resourceName, cpcBidMicros: String(adGroup.cpcBidMicros) } },
            ],
          },
        },
        {
          entity: 'ad_group_ads',
          action: 'list',
          params: {
            customer_id: cid,
            query: `SELECT ad_group.id, ad_group_ad.ad.id, ad_group_ad.status, segments.date FROM ad_group_ad WHERE segments.date BETWEEN '2024-01-01' AND '2024-12-31' ORDER BY segments.date`,
          },
        },
        list('campaign_labels'),
        {
          entity: 'campaign_labels',
          action: 'create',
          params: {
            customer_id: cid,
            operations: [{ create: { campaign: campaignLink.target, label: campaignLink.label } }],
          },
        },
        list('ad_group_labels'),
        {
          entity: 'ad_group_labels',
          action: 'create',
          params: {
            customer_id: cid,
            operations: [{ create: { adGroup: adGroupLink.target, label: adGroupLink.label } }],
          },
        },
        list('ad_group_ad_labels'),
        list('labels'),
        {
          entity: 'labels',
          action: 'create',
          params: {
            customer_id: cid,
            operations: [
              { create: { name: `Conduit label ${++labelsCreated}`, textLabel: { backgroundColor: '#1a2b3c' } } },
            ],
          },
        },
        { entity: 'accessible_customers', action: 'list', params: {} },
      ];
    },
  }) as GoogleAdsHandle;
}
