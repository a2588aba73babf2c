import { describe, expect, it } from 'vitest';
import { connectWith } from '../../packages/connectors/src/core/connect.ts';
import type { UpstreamError } from '../../packages/connectors/src/core/errors.ts';
import { googleAdsCatalog } from '../../packages/connectors/src/kinds/google-ads/catalog.ts';
import { googleAdsConnector } from '../../packages/connectors/src/kinds/google-ads/connector.ts';
import { resourceExhausted } from '../simulators/google-ads/app.ts';
import { credentialsFor, startGoogleAds, startGoogleAdsSimulator } from '../simulators/google-ads/simulator.ts';
import { describeConnectorConformance, FAST_RETRY } from './conformance.ts';
import { collectPages, failure, keyOf } from './conformance-kit.ts';
import { echoedCredentials } from './conformance-presets.ts';

type Row = Record<string, unknown>;

async function collect(iterable: AsyncIterable<{ records: Row[]; checkpoint: unknown }>, key: (r: Row) => string) {
  return (await collectPages(iterable, key)).map((p) => ({ keys: p.keys, checkpoint: p.checkpoint }));
}

async function json(promise: Promise<unknown>): Promise<{ data: unknown; meta?: Record<string, unknown> }> {
  const result = (await promise) as { type: string; body: { data: unknown; meta?: Record<string, unknown> } };
  expect(result.type).toBe('json');
  return result.body;
}

const campaignName = 'customers/1234567890/campaigns/1';
const customer_id = '1234567890';
const at = (entity: string, action: string, params: Record<string, unknown>, path: string) => ({
  entity,
  action,
  params: { customer_id, ...params },
  path: `/params/${path}`,
});
const update = (change: Record<string, unknown>) => ({ operations: [{ update: change }] });
// Google's formats and limits: customer ids without dashes, pageSize up to 10,000, mutate operations.
const violations = [
  at('campaigns', 'list', { customer_id: '123-456-7890' }, 'customer_id'),
  at('campaigns', 'list', { pageSize: 10001 }, 'pageSize'),
  at('ad_groups', 'list', { pageSize: 0 }, 'pageSize'),
  at('campaigns', 'update', { operations: [] }, 'operations'),
  at('campaigns', 'update', update({ status: 'PAUSED' }), 'operations/0/update/resourceName'),
  at('campaigns', 'update', update({ resourceName: campaignName, status: 'REMOVED' }), 'operations/0/update/status'),
  at(
    'ad_groups',
    'update',
    update({ resourceName: 'customers/1234567890/adGroups/2', cpcBidMicros: '1.5' }),
    'operations/0/update/cpcBidMicros',
  ),
  at(
    'campaign_labels',
    'create',
    { operations: [{ create: { campaign: campaignName } }] },
    'operations/0/create/label',
  ),
];

const labels = (customer_id: string) => ({ entity: 'labels', action: 'list', params: { customer_id } });
const firstCustomer = (config: Record<string, unknown>) => String((config.customer_ids as string[])[0]);

describeConnectorConformance({
  name: 'Google-Ads in direct mode',
  definition: googleAdsConnector,
  start: () => startGoogleAds({ size: 8 }),
  checkExample: (example, body, sim) => {
    if (example.action !== 'list')
      expect((body?.data as { results?: unknown[] } | undefined)?.results, example.entity).toHaveLength(1);
    // pageSize is cut client-side: it never reaches the upstream search.
    expect(sim.searches.some((s) => 'pageSize' in s.body)).toBe(false);
  },
  invalid: violations,
  unsupported: [
    { entity: 'campaign', action: 'list', mentions: 'campaigns' },
    { entity: 'labels', action: 'update', mentions: 'list' },
  ],
  storms: [
    {
      label: '429 with retryDelay in the body (no Retry-After, as Google sends it)',
      fault: { status: 429, count: 3, pathIncludes: 'googleAds:search', body: resourceExhausted(0) },
      request: (sim) => labels(firstCustomer(sim.config)),
      settings: { retry: FAST_RETRY },
    },
    {
      label: '429 honouring Retry-After',
      fault: { status: 429, count: 2, retryAfterSeconds: 0, pathIncludes: 'googleAds:search' },
      request: (sim) => labels(firstCustomer(sim.config)),
    },
  ],
  auth: {
    request: (sim) => ({ entity: 'accounts', action: 'list', params: { customer_id: firstCustomer(sim.config) } }),
    credentials: (sim) => [
      sim.badCredentials,
      { ...sim.credentials, developer_token: 'revoked-dev-token-0000' },
      { ...sim.credentials, login_customer_id: '1111111111' },
    ],
    secrets: (sim) => [
      'revoked-dev-token-0000',
      '1//revoked-refresh-0000',
      'ya29.bogus-access-0000',
      String(sim.credentials.client_secret),
    ],
  },
  echo: echoedCredentials(
    (sim) => labels(firstCustomer(sim.config)),
    ['developer_token', 'refresh_token'],
    (planted) => ({ status: 400, pathIncludes: 'googleAds:search', body: { error: { message: planted } } }),
  ),
  replication: {
    // Over the configured customers, and over every accessible customer when none is configured.
    configs: (sim) => [sim.config, {}],
    verify: (sim) => {
      const windows = sim.searches.filter((s) => String(s.body.query).includes('BETWEEN'));
      expect(windows.some((s) => String(s.body.query).includes("BETWEEN '2024-07-01' AND '2024-07-30'"))).toBe(true);
    },
  },
  resume: { notApplicable: 'the main simulator answers each slice in one page; see "replication over upstream pages"' },
  specific: (h) => {
    const cid = () => firstCustomer(h.sim().config);

    it('creates a label (labels:mutate), which the labels list then shows; a duplicate name is refused', async () => {
      const connector = h.connector();
      const create = { customer_id: cid(), operations: [{ create: { name: 'Spring sale' } }] };
      const created = await connector.execute({ entity: 'labels', action: 'create', params: create });
      if (created.type !== 'json') throw new Error('expected json');
      const resourceName = (created.body.data as { results: { resourceName: string }[] }).results[0]!.resourceName;
      expect(resourceName).toMatch(new RegExp(`^customers/${cid()}/labels/\\d+$`));
      const listed = await connector.execute({ entity: 'labels', action: 'list', params: { customer_id: cid() } });
      if (listed.type !== 'json') throw new Error('expected json');
      const names = (listed.body.data as { label: { name: string; resourceName: string } }[]).map((r) => r.label);
      expect(names).toContainEqual(expect.objectContaining({ name: 'Spring sale', resourceName }));
      const again = await failure(connector.execute({ entity: 'labels', action: 'create', params: create }));
      expect(again.code).toBe('upstream_error');
      const badColor = await failure(
        connector.execute({
          entity: 'labels',
          action: 'create',
          params: {
            customer_id: cid(),
            operations: [{ create: { name: 'x', textLabel: { backgroundColor: 'red' } } }],
          },
        }),
      );
      expect(badColor.code).toBe('invalid_params');
      expect(badColor.errors[0]?.path).toBe('/params/operations/0/create/textLabel/backgroundColor');
    });

    it('cuts pages client-side for pageSize, never sends it upstream, and pages to the end', async () => {
      const connector = h.connector();
      const all = (
        await json(connector.execute({ entity: 'campaigns', action: 'list', params: { customer_id: cid() } }))
      ).data as Row[];
      expect(all).toHaveLength(8);
      const seen: Row[] = [];
      let pageToken: unknown;
      for (let guard = 0; guard < 10; guard++) {
        const params = { customer_id: cid(), pageSize: 3, ...(pageToken ? { pageToken } : {}) };
        const body = await json(connector.execute({ entity: 'campaigns', action: 'list', params }));
        seen.push(...(body.data as Row[]));
        pageToken = body.meta?.next_page_token;
        if (pageToken === null) break;
      }
      expect(seen.map((r) => r._row_key)).toEqual(all.map((r) => r._row_key));
      expect(h.sim().searches.every((s) => !('pageSize' in s.body))).toBe(true);
      const row = all[0]!;
      expect(typeof (row.metrics as Row).clicks).toBe('string'); // int64 as the upstream sends it
      const network = (row.campaign as Row).networkSettings as Row;
      expect(network.targetProviderSearch).toBe(network.targetGoogleSearch);
    });

    it('runs the caller query instead of the default, with per-day rows keyed by resource and date', async () => {
      const query = `SELECT campaign.id, metrics.clicks, segments.date FROM campaign WHERE segments.date BETWEEN '2024-07-01' AND '2024-07-31' ORDER BY segments.date`;
      const body = await json(
        h.connector().execute({ entity: 'campaigns', action: 'list', params: { customer_id: cid(), query } }),
      );
      const rows = body.data as Row[];
      for (const row of rows) {
        const date = (row.segments as Row).date as string;
        expect(date >= '2024-07-01' && date <= '2024-07-31').toBe(true);
        expect(row._row_key).toBe(`${(row.campaign as Row).resourceName}|date=${date}`);
      }
      const bad = await failure(
        h
          .connector()
          .execute({ entity: 'campaigns', action: 'list', params: { customer_id: cid(), query: 'SELEC nothing' } }),
      );
      expect(bad.code).toBe('upstream_error');
    });

    it('applies campaign and ad group updates so a following list shows them', async () => {
      const connector = h.connector();
      const campaign = h.sim().data.campaigns.find((c) => c.resourceName.includes(cid()))!;
      const adGroup = h.sim().data.adGroups.find((g) => g.resourceName.includes(cid()))!;
      const updated = await json(
        connector.execute({
          entity: 'campaigns',
          action: 'update',
          params: {
            customer_id: cid(),
            operations: [
              {
                updateMask: 'name,status',
                update: { resourceName: campaign.resourceName, name: 'Renamed', status: 'PAUSED' },
              },
            ],
          },
        }),
      );
      expect(updated.data).toEqual({ results: [{ resourceName: campaign.resourceName }] });
      await connector.execute({
        entity: 'ad_groups',
        action: 'update',
        params: {
          customer_id: cid(),
          operations: [{ update: { resourceName: adGroup.resourceName, status: 'ENABLED', cpcBidMicros: '1230000' } }],
        },
      });
      const campaigns = (
        await json(
          connector.execute({
            entity: 'campaigns',
            action: 'list',
            params: {
              customer_id: cid(),
              query: `SELECT campaign.id, campaign.name, campaign.status FROM campaign WHERE campaign.id = ${String(campaign.id)}`,
            },
          }),
        )
      ).data as Row[];
      expect(campaigns.map((r) => r.campaign)).toEqual([
        expect.objectContaining({ name: 'Renamed', status: 'PAUSED' }),
      ]);
      const groups = (
        await json(connector.execute({ entity: 'ad_groups', action: 'list', params: { customer_id: cid() } }))
      ).data as Row[];
      const group = groups.find((r) => (r.adGroup as Row).resourceName === adGroup.resourceName)!;
      expect(group.adGroup).toEqual(expect.objectContaining({ status: 'ENABLED', cpcBidMicros: '1230000' }));
    });

    it('creates label links that the next list shows, and reports a duplicate as upstream_error', async () => {
      const connector = h.connector();
      for (const entity of ['campaign_labels', 'ad_group_labels']) {
        const example = h.sim().examples.find((e) => e.entity === entity && e.action === 'create')!;
        const created = (await json(connector.execute(example))).data as { results: { resourceName: string }[] };
        const name = created.results[0]!.resourceName;
        const listed = (await json(connector.execute({ entity, action: 'list', params: { customer_id: cid() } })))
          .data as Row[];
        expect(listed.map(keyOf(googleAdsCatalog, entity))).toContain(name);
        const again = await failure(connector.execute(example));
        expect(again.code).toBe('upstream_error');
        expect((again as UpstreamError).upstreamBody).toContain('RESOURCE_ALREADY_EXISTS');
      }
    });

    it('refreshes the expired access token at the token URL and reports the rotated refresh token', async () => {
      const rotated: Record<string, unknown>[] = [];
      await json(
        h.connector({ onCredentialsRotated: (c) => void rotated.push(c) }).execute({
          entity: 'accessible_customers',
          action: 'list',
        }),
      );
      expect(rotated).toHaveLength(1);
      expect(rotated[0]?.refresh_token).not.toBe(h.sim().credentials.refresh_token);
      expect(rotated[0]?.developer_token).toBe(h.sim().credentials.developer_token);
    });
  },
});

describe('Google-Ads replication over upstream pages', () => {
  it('follows nextPageToken and resumes from a mid-slice checkpoint without gaps', async () => {
    const sim = await startGoogleAdsSimulator({ rowsPerPage: 7, campaignsPerCustomer: 6 });
    try {
      const connector = connectWith(
        googleAdsConnector,
        credentialsFor(sim),
        {},
        { baseUrl: `${sim.url}/v23`, tokenUrl: `${sim.url}/token` },
      );
      const since = '2024-03-01T00:00:00Z';
      const key = keyOf(googleAdsCatalog, 'ad_group_ads');
      const pages = await collect(connector.read('ad_group_ads', { since }), key);
      const all = pages.flatMap((p) => p.keys);
      expect(new Set(all).size).toBe(all.length);
      const cut = pages.findIndex((p) => (p.checkpoint as { pageToken?: unknown } | null)?.pageToken);
      expect(cut).toBeGreaterThanOrEqual(0);
      const rest = (
        await collect(connector.read('ad_group_ads', { since, resume: pages[cut]!.checkpoint }), key)
      ).flatMap((p) => p.keys);
      expect([...pages.slice(0, cut + 1).flatMap((p) => p.keys), ...rest]).toEqual(all);
      expect(pages.at(-1)?.checkpoint).toBeNull();
      // A live list with pageSize 3 across upstream pages of 7 rows.
      const cid = String(sim.data.customers[0]!.id);
      const seen: unknown[] = [];
      let pageToken: unknown;
      do {
        const result = await connector.execute({
          entity: 'ad_group_ads',
          action: 'list',
          params: { customer_id: cid, pageSize: 3, ...(pageToken ? { pageToken } : {}) },
        });
        if (result.type !== 'json') throw new Error('expected json');
        seen.push(...(result.body.data as Row[]).map((r) => (r.adGroupAd as Row).resourceName));
        pageToken = result.body.meta?.next_page_token;
      } while (pageToken);
      expect(seen).toHaveLength(24);
      expect(seen.sort()).toEqual(
        sim.data.adGroupAds
          .filter((a) => a.resourceName.includes(cid))
          .map((a) => a.resourceName)
          .sort(),
      );
    } finally {
      await sim.close();
    }
  });
});
