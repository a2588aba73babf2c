import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchAllRows, waitForEntity } from '../harness/connector-status.ts';
import { createConnector } from '../harness/create-connector.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { type GoogleAdsHandle, startGoogleAds } from '../simulators/google-ads/simulator.ts';

/**
 * Google Ads campaign records are rows per campaign, day, hour and network, as the reports replicate them, and
 * both segments are searchable: filters on them and a dashboard's daily totals over them agree with the upstream.
 */
type Row = Record<string, unknown>;
const at = (record: Row, path: string): unknown =>
  path.split('.').reduce<unknown>((v, k) => (v as Row | undefined)?.[k], record);

let sim: GoogleAdsHandle;
let platform: TestPlatform;
let id: string;
let rows: Row[];

async function search(params: Record<string, unknown>) {
  const response = await platform.call('POST', `/api/v1/integrations/connectors/${id}/execute`, {
    entity: 'campaigns',
    action: 'search',
    params,
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as { data: Row[]; meta: { total: { value: number }; aggregations?: unknown } };
}

beforeAll(async () => {
  sim = await startGoogleAds({ size: 2 });
  platform = await startTestPlatform({
    overrides: { baseUrls: { GOOGLE_ADS: sim.baseUrl }, tokenUrls: { GOOGLE_ADS: sim.tokenUrl! } },
  });
  id = await createConnector(platform, {
    customer_name: 'ads-segments',
    connector_type: 'Google-Ads',
    name: 'ads',
    credentials: sim.credentials,
    config: sim.config,
    replication_config: sim.replicationConfig,
  });
  await waitForEntity(platform, id, 'campaigns', (s) => s.status === 'ready' && !s.running);
  rows = await searchAllRows(platform, id, 'campaigns');
}, 120_000);

afterAll(async () => {
  await platform?.close();
  await sim?.close();
});

describe('Google Ads campaigns per day, hour and network', () => {
  it('replicates one record per campaign, day, hour and network', () => {
    const keys = sim.expectedKeys('campaigns');
    expect(rows).toHaveLength(keys.length);
    const combos = new Set(
      rows.map((r) =>
        ['campaign.id', 'segments.date', 'segments.hour', 'segments.ad_network_type'].map((p) => at(r, p)).join('|'),
      ),
    );
    expect(combos.size).toBe(rows.length);
    expect(new Set(rows.map((r) => at(r, 'segments.ad_network_type')))).toEqual(new Set(['SEARCH', 'CONTENT']));
    expect(rows.every((r) => Number.isInteger(at(r, 'segments.hour')))).toBe(true);
  });

  it('filters on segments.hour and segments.ad_network_type', async () => {
    const hour = at(rows[0]!, 'segments.hour') as number;
    const expected = rows.filter(
      (r) => at(r, 'segments.hour') === hour && at(r, 'segments.ad_network_type') === 'CONTENT',
    );
    expect(expected.length).toBeGreaterThan(0);
    const found = await search({
      query: { filter: { eq: { 'segments.hour': hour, 'segments.ad_network_type': 'CONTENT' } } },
      limit: 10000,
    });
    expect(found.meta.total.value).toBe(expected.length);
    expect(found.data.every((r) => at(r, 'segments.hour') === hour)).toBe(true);
    const byNetwork = await search({
      query: {},
      limit: 0,
      aggregate: { networks: { count_by: 'segments.ad_network_type' } },
    });
    const counts = byNetwork.meta.aggregations as { networks: { key: string; count: number }[] };
    expect(counts.networks.map((b) => b.count).reduce((a, b) => a + b, 0)).toBe(rows.length);
  });

  it("answers a dashboard's daily totals: the hours and networks of a day add up to the upstream's day", async () => {
    const day = String(at(rows[0]!, 'segments.date'));
    const campaignId = at(rows[0]!, 'campaign.id');
    const totals = await search({
      query: { filter: { eq: { 'segments.date': day, 'campaign.id': campaignId } } },
      limit: 0,
      aggregate: { clicks: { sum: 'metrics.clicks' }, by_hour: { count_by: 'segments.hour' } },
    });
    const resourceName = String(at(rows[0]!, 'campaign.resource_name'));
    const upstreamDay = sim.data.stats.get(resourceName)!.find((s) => s.date === day.slice(0, 10))!;
    const aggregations = totals.meta.aggregations as { clicks: { value: number }; by_hour: unknown[] };
    expect(Number(aggregations.clicks.value)).toBe(upstreamDay.clicks);
    expect(aggregations.by_hour).toHaveLength(3);
  });
});
