import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { entityActions } from '../../packages/connectors/src/core/catalog.ts';
import { connectWith } from '../../packages/connectors/src/core/connect.ts';
import type { ConnectorSettings } from '../../packages/connectors/src/core/define-connector.ts';
import { ConnectorError, UpstreamError } from '../../packages/connectors/src/core/errors.ts';
import { googleAdsCatalog } from '../../packages/connectors/src/kinds/google-ads/catalog.ts';
import { googleAdsConnector } from '../../packages/connectors/src/kinds/google-ads/connector.ts';
import { resourceExhausted } from '../simulators/google-ads/app.ts';
import {
  credentialsFor,
  type GoogleAdsHandle,
  startGoogleAds,
  startGoogleAdsSimulator,
} from '../simulators/google-ads/simulator.ts';

type Row = Record<string, unknown>;
const FAST_RETRY = { maxAttempts: 6, baseDelayMs: 5, maxDelayMs: 20, maxWaitMs: 5_000 };

async function failure(promise: Promise<unknown>): Promise<ConnectorError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectorError);
  return error as ConnectorError;
}

async function collect(iterable: AsyncIterable<{ records: Row[]; checkpoint: unknown }>, key: (r: Row) => string) {
  const pages: { keys: string[]; checkpoint: unknown }[] = [];
  for await (const page of iterable) pages.push({ keys: page.records.map(key), checkpoint: page.checkpoint });
  return pages;
}

/** The record key the catalog names (`_row_key` or `campaignLabel.resourceName`), as a string. */
function keyOf(entity: string): (r: Row) => string {
  const path = googleAdsCatalog.entities[entity]!.recordKey.split('.');
  return (r) => String(path.reduce<unknown>((v, k) => (v as Row | undefined)?.[k], r));
}

async function json(promise: Promise<unknown>): Promise<{ data: unknown; meta?: Record<string, unknown> }> {
  const result = (await promise) as { type: string; body: { data: unknown; meta?: Record<string, unknown> } };
  expect(result.type).toBe('json');
  return result.body;
}

describe('Google-Ads in direct mode', () => {
  let sim: GoogleAdsHandle;
  beforeAll(async () => {
    sim = await startGoogleAds({ size: 8 });
  });
  afterAll(() => sim.close());

  const ads = (
    settings: ConnectorSettings = {},
    credentials: Record<string, unknown> = sim.credentials,
    config = sim.config,
  ) =>
    connectWith(googleAdsConnector, credentials, config, { baseUrl: sim.baseUrl, tokenUrl: sim.tokenUrl, ...settings });
  const cid = () => String((sim.config.customer_ids as string[])[0]);

  it('answers every example call (one per entity and live action) with data and document 2 meta', async () => {
    const connector = ads();
    const examples = sim.examples;
    const covered = new Set(examples.map((e) => `${e.entity}.${e.action}`));
    for (const entity of Object.values(googleAdsCatalog.entities)) {
      for (const action of Object.keys(entity.actions)) expect(covered).toContain(`${entity.name}.${action}`);
    }
    for (const example of examples) {
      const body = await json(connector.execute(example));
      const label = `${example.entity} ${example.action}`;
      if (example.action === 'list') {
        expect((body.data as unknown[]).length, label).toBeGreaterThan(0);
        if (googleAdsCatalog.entities[example.entity]?.meta) expect(body.meta, label).toHaveProperty('next_page_token');
      } else {
        expect((body.data as { results: unknown[] }).results, label).toHaveLength(1);
      }
    }
    expect(sim.searches.some((s) => 'pageSize' in s.body)).toBe(false);
  });

  it('cuts pages client-side for pageSize, never sends it upstream, and pages to the end', async () => {
    const connector = ads();
    const all = (await json(connector.execute({ entity: 'campaigns', action: 'list', params: { customer_id: cid() } })))
      .data as Row[];
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
    expect(sim.searches.every((s) => !('pageSize' in s.body))).toBe(true);
    const row = all[0]!;
    expect(typeof (row.metrics as Row).clicks).toBe('string'); // int64 as the upstream sends it
    const network = (row.campaign as Row).networkSettings as Row;
    expect(network.targetProviderSearch).toBe(network.targetGoogleSearch);
  });

  it('runs the caller query instead of the default, with per-day rows keyed by resource and date', async () => {
    const query = `SELECT campaign.id, metrics.clicks, segments.date FROM campaign WHERE segments.date BETWEEN '2024-07-01' AND '2024-07-31' ORDER BY segments.date`;
    const body = await json(
      ads().execute({ entity: 'campaigns', action: 'list', params: { customer_id: cid(), query } }),
    );
    const rows = body.data as Row[];
    for (const row of rows) {
      const date = (row.segments as Row).date as string;
      expect(date >= '2024-07-01' && date <= '2024-07-31').toBe(true);
      expect(row._row_key).toBe(`${(row.campaign as Row).resourceName}|date=${date}`);
    }
    const bad = await failure(
      ads().execute({ entity: 'campaigns', action: 'list', params: { customer_id: cid(), query: 'SELEC nothing' } }),
    );
    expect(bad.code).toBe('upstream_error');
  });

  it('applies campaign and ad group updates so a following list shows them', async () => {
    const connector = ads();
    const campaign = sim.data.campaigns.find((c) => c.resourceName.includes(cid()))!;
    const adGroup = sim.data.adGroups.find((g) => g.resourceName.includes(cid()))!;
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
    expect(campaigns.map((r) => r.campaign)).toEqual([expect.objectContaining({ name: 'Renamed', status: 'PAUSED' })]);
    const groups = (
      await json(connector.execute({ entity: 'ad_groups', action: 'list', params: { customer_id: cid() } }))
    ).data as Row[];
    const group = groups.find((r) => (r.adGroup as Row).resourceName === adGroup.resourceName)!;
    expect(group.adGroup).toEqual(expect.objectContaining({ status: 'ENABLED', cpcBidMicros: '1230000' }));
  });

  it('creates label links that the next list shows, and reports a duplicate as upstream_error', async () => {
    const connector = ads();
    for (const entity of ['campaign_labels', 'ad_group_labels']) {
      const example = sim.examples.find((e) => e.entity === entity && e.action === 'create')!;
      const created = (await json(connector.execute(example))).data as { results: { resourceName: string }[] };
      const name = created.results[0]!.resourceName;
      const listed = (await json(connector.execute({ entity, action: 'list', params: { customer_id: cid() } })))
        .data as Row[];
      expect(listed.map(keyOf(entity))).toContain(name);
      const again = await failure(connector.execute(example));
      expect(again.code).toBe('upstream_error');
      expect((again as UpstreamError).upstreamBody).toContain('RESOURCE_ALREADY_EXISTS');
    }
  });

  const required = Object.values(googleAdsCatalog.entities).flatMap((entity) =>
    Object.entries(entity.actions).flatMap(([action, schema]) =>
      Object.keys(schema.shape)
        .filter((name) => !(schema.shape[name] as z.ZodType).safeParse(undefined).success)
        .map((name) => ({ entity: entity.name, action, name })),
    ),
  );

  it.each(required)(
    '$entity $action without $name is invalid_params at /params/$name',
    async ({ entity, action, name }) => {
      const error = await failure(ads().execute({ entity, action, params: {} }));
      expect(error.code).toBe('invalid_params');
      expect(error.errors.map((e) => e.path)).toContain(`/params/${name}`);
    },
  );

  const campaignName = 'customers/1234567890/campaigns/1';
  const violations = [
    { entity: 'campaigns', action: 'list', params: { customer_id: '123-456-7890' }, path: '/params/customer_id' },
    {
      entity: 'campaigns',
      action: 'list',
      params: { customer_id: '1234567890', pageSize: 10001 },
      path: '/params/pageSize',
    },
    {
      entity: 'ad_groups',
      action: 'list',
      params: { customer_id: '1234567890', pageSize: 0 },
      path: '/params/pageSize',
    },
    {
      entity: 'campaigns',
      action: 'update',
      params: { customer_id: '1234567890', operations: [] },
      path: '/params/operations',
    },
    {
      entity: 'campaigns',
      action: 'update',
      params: { customer_id: '1234567890', operations: [{ update: { status: 'PAUSED' } }] },
      path: '/params/operations/0/update/resourceName',
    },
    {
      entity: 'campaigns',
      action: 'update',
      params: {
        customer_id: '1234567890',
        operations: [{ update: { resourceName: campaignName, status: 'REMOVED' } }],
      },
      path: '/params/operations/0/update/status',
    },
    {
      entity: 'ad_groups',
      action: 'update',
      params: {
        customer_id: '1234567890',
        operations: [{ update: { resourceName: 'customers/1234567890/adGroups/2', cpcBidMicros: '1.5' } }],
      },
      path: '/params/operations/0/update/cpcBidMicros',
    },
    {
      entity: 'campaign_labels',
      action: 'create',
      params: { customer_id: '1234567890', operations: [{ create: { campaign: campaignName } }] },
      path: '/params/operations/0/create/label',
    },
  ];

  it.each(violations)('rejects $entity $action at $path', async ({ entity, action, params, path }) => {
    const error = await failure(ads().execute({ entity, action, params }));
    expect(error.code).toBe('invalid_params');
    expect(error.errors.map((e) => e.path)).toContain(path);
  });

  it('answers an unknown entity or action with unsupported_action listing the supported ones', async () => {
    const entity = await failure(ads().execute({ entity: 'campaign', action: 'list' }));
    expect(entity.code).toBe('unsupported_action');
    expect(entity.errors[0]?.message).toContain('campaigns');
    const action = await failure(ads().execute({ entity: 'labels', action: 'update', params: {} }));
    expect(action.code).toBe('unsupported_action');
    expect(action.errors[0]?.message).toContain(entityActions(googleAdsCatalog.entities.labels!).join(', '));
  });

  it('rides out a 429 storm: retryDelay in the body (no Retry-After, as Google sends it) and Retry-After', async () => {
    sim.faults.add({ status: 429, count: 3, pathIncludes: 'googleAds:search', body: resourceExhausted(0) });
    expect(
      (
        await json(
          ads({ retry: FAST_RETRY }).execute({ entity: 'labels', action: 'list', params: { customer_id: cid() } }),
        )
      ).data,
    ).not.toHaveLength(0);
    sim.faults.add({ status: 429, count: 2, retryAfterSeconds: 0, pathIncludes: 'googleAds:search' });
    expect(
      (await json(ads().execute({ entity: 'labels', action: 'list', params: { customer_id: cid() } }))).data,
    ).not.toHaveLength(0);
  });

  it('maps rejected credentials to upstream_auth_failed without echoing any secret', async () => {
    const cases = [
      sim.badCredentials,
      { ...sim.credentials, developer_token: 'revoked-dev-token-0000' },
      { ...sim.credentials, login_customer_id: '1111111111' },
    ];
    for (const credentials of cases) {
      const error = await failure(
        ads({}, credentials).execute({ entity: 'accounts', action: 'list', params: { customer_id: cid() } }),
      );
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error.code).toBe('upstream_auth_failed');
      for (const secret of [
        'revoked-dev-token-0000',
        '1//revoked-refresh-0000',
        'ya29.bogus-access-0000',
        String(sim.credentials.client_secret),
      ]) {
        expect(JSON.stringify(error)).not.toContain(secret);
        expect(error.message).not.toContain(secret);
      }
    }
  });

  it('redacts the developer token and OAuth secrets when an upstream error body echoes them', async () => {
    const planted = `${String(sim.credentials.developer_token)} ${String(sim.credentials.refresh_token)}`;
    sim.faults.add({ status: 400, count: 1, pathIncludes: 'googleAds:search', body: { error: { message: planted } } });
    const error = await failure(ads().execute({ entity: 'labels', action: 'list', params: { customer_id: cid() } }));
    expect(error.code).toBe('upstream_error');
    for (const secret of [sim.credentials.developer_token, sim.credentials.refresh_token].map(String)) {
      expect(JSON.stringify(error)).not.toContain(secret);
      expect(error.message).not.toContain(secret);
    }
    expect((error as UpstreamError).upstreamBody).toContain('[REDACTED]');
  });

  it('refreshes the expired access token at the token URL and reports the rotated refresh token', async () => {
    const rotated: Record<string, unknown>[] = [];
    await json(
      ads({ onCredentialsRotated: (c) => void rotated.push(c) }).execute({
        entity: 'accessible_customers',
        action: 'list',
      }),
    );
    expect(rotated).toHaveLength(1);
    expect(rotated[0]?.refresh_token).not.toBe(sim.credentials.refresh_token);
    expect(rotated[0]?.developer_token).toBe(sim.credentials.developer_token);
  });

  it('replicates every searchable entity over every customer to the expected keys', async () => {
    for (const config of [sim.config, {}]) {
      const connector = ads({}, sim.credentials, config);
      const since = String(sim.replicationConfig.start_date);
      for (const entity of Object.values(googleAdsCatalog.entities).filter((e) => e.sync)) {
        const keys = (await collect(connector.read(entity.name, { since }), keyOf(entity.name))).flatMap((p) => p.keys);
        expect(keys.sort(), entity.name).toEqual(sim.expectedKeys(entity.name).sort());
        expect(keys.length, entity.name).toBeGreaterThan(0);
      }
    }
    const windows = sim.searches.filter((s) => String(s.body.query).includes('BETWEEN'));
    expect(windows.some((s) => String(s.body.query).includes("BETWEEN '2024-07-01' AND '2024-07-30'"))).toBe(true);
  });
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
      const key = keyOf('ad_group_ads');
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
