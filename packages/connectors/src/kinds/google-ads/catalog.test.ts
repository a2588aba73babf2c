import { describe, expect, it } from 'vitest';
import { actionParams } from '../../core/catalog.ts';
import { googleAdsCatalog, googleAdsRowKey } from './catalog.ts';

const { entities } = googleAdsCatalog;

const params = (entity: string, action: 'list' | 'update' | 'create') => actionParams(entities, entity, action);

const cid = '1234567890';
const campaign = `customers/${cid}/campaigns/42`;
const adGroup = `customers/${cid}/adGroups/7`;
const label = `customers/${cid}/labels/9`;

/** The entities the catalog names searchable: all of the issue's but accessible_customers and labels. */
const SEARCHABLE = [
  'accounts',
  'ad_group_ad_labels',
  'ad_group_ads',
  'ad_group_labels',
  'ad_groups',
  'campaign_labels',
  'campaigns',
];

describe('Google Ads catalog', () => {
  it('has the entities of the issue, each with list', () => {
    expect(Object.keys(entities).sort()).toEqual([...SEARCHABLE, 'accessible_customers', 'labels'].sort());
    for (const entity of Object.values(entities)) expect(entity.actions.list, entity.name).toBeDefined();
  });

  it('makes exactly the entities the catalog names searchable, each with a sync spec', () => {
    const searchable = Object.values(entities)
      .filter((e) => e.searchable)
      .map((e) => e.name)
      .sort();
    expect(searchable).toEqual([...SEARCHABLE].sort());
    for (const entity of Object.values(entities))
      expect(Boolean(entity.sync), entity.name).toBe(Boolean(entity.searchable));
    for (const name of ['accounts', 'campaigns', 'ad_groups', 'ad_group_ads']) {
      expect(entities[name]?.sync).toEqual({ mode: 'incremental', cursorField: 'segments.date' });
    }
    expect(entities.campaign_labels?.sync?.mode).toBe('full_refresh');
  });

  it('declares snake_case dotted searchable fields with int64 ids as integers and dates as datetimes', () => {
    const fields = entities.campaigns?.searchable ?? {};
    expect(fields['campaign.id']?.type).toBe('integer');
    expect(fields['campaign_budget.amount_micros']?.type).toBe('integer');
    expect(fields['segments.date']?.type).toBe('datetime');
    expect(fields['campaign.status']).toMatchObject({ type: 'string', enum: ['ENABLED', 'PAUSED', 'REMOVED'] });
    // All 30 of the catalog's, the two extra segments included: campaign rows are per day, hour and network.
    expect(Object.keys(fields)).toHaveLength(30);
    expect(fields['segments.hour']?.type).toBe('integer');
    expect(fields['segments.ad_network_type']?.type).toBe('string');
    expect(Object.keys(entities.accounts?.searchable ?? {})).toHaveLength(21);
    expect(Object.keys(entities.ad_groups?.searchable ?? {})).toHaveLength(22);
    expect(Object.keys(entities.ad_group_ads?.searchable ?? {})).toHaveLength(18);
    for (const entity of Object.values(entities)) {
      for (const [path, spec] of Object.entries(entity.searchable ?? {})) {
        expect(path, entity.name).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
        expect(spec.nullable, `${entity.name} ${path}`).toBe(false);
      }
    }
  });

  it('validates customer_id and pageSize on list', () => {
    const list = params('campaigns', 'list');
    expect(
      list.safeParse({ customer_id: cid, pageSize: 10000, query: 'SELECT campaign.id FROM campaign' }).success,
    ).toBe(true);
    expect(list.safeParse({}).success).toBe(false);
    expect(list.safeParse({ customer_id: '123-456-7890' }).success).toBe(false);
    expect(list.safeParse({ customer_id: '123456789' }).success).toBe(false);
    expect(list.safeParse({ customer_id: cid, pageSize: 10001 }).success).toBe(false);
    expect(list.safeParse({ customer_id: cid, pageSize: 0 }).success).toBe(false);
    expect(list.safeParse({ customer_id: cid, page_size: 10 }).success).toBe(false);
    expect(params('accessible_customers', 'list').safeParse({}).success).toBe(true);
    expect(params('accessible_customers', 'list').safeParse({ customer_id: cid }).success).toBe(false);
  });

  it('validates campaign update operations', () => {
    const update = params('campaigns', 'update');
    const op = (u: Record<string, unknown>, updateMask?: string) => ({
      customer_id: cid,
      operations: [{ ...(updateMask ? { updateMask } : {}), update: { resourceName: campaign, ...u } }],
    });
    expect(update.safeParse(op({ status: 'PAUSED' }, 'status')).success).toBe(true);
    expect(update.safeParse(op({ name: 'Spring', status: 'ENABLED' })).success).toBe(true);
    expect(update.safeParse(op({ status: 'REMOVED' })).success).toBe(false);
    expect(update.safeParse(op({ budget: 5 })).success).toBe(false);
    expect(update.safeParse(op({ status: 'PAUSED' }, 'status,budget')).success).toBe(false);
    expect(update.safeParse(op({})).success).toBe(false);
    expect(update.safeParse({ customer_id: cid, operations: [] }).success).toBe(false);
    expect(update.safeParse({ customer_id: cid }).success).toBe(false);
    expect(
      update.safeParse({ customer_id: cid, operations: [{ update: { resourceName: adGroup, status: 'PAUSED' } }] })
        .success,
    ).toBe(false);
    const other = update.safeParse({
      customer_id: '9999999999',
      operations: [{ update: { resourceName: campaign, status: 'PAUSED' } }],
    });
    expect(other.success).toBe(false);
    expect(other.error?.issues[0]?.path).toEqual(['operations', 0, 'update', 'resourceName']);
  });

  it('validates ad group updates including cpcBidMicros', () => {
    const update = params('ad_groups', 'update');
    const op = (u: Record<string, unknown>) => ({
      customer_id: cid,
      operations: [{ update: { resourceName: adGroup, ...u } }],
    });
    expect(update.safeParse(op({ cpcBidMicros: '1500000' })).success).toBe(true);
    expect(update.safeParse(op({ cpcBidMicros: '1.5' })).success).toBe(false);
    expect(update.safeParse(op({ cpcBidMicros: 1500000 })).success).toBe(false);
    expect(
      update.safeParse({ customer_id: cid, operations: [{ update: { resourceName: campaign, status: 'PAUSED' } }] })
        .success,
    ).toBe(false);
  });

  it('validates label association creates', () => {
    const campaignLabels = params('campaign_labels', 'create');
    expect(campaignLabels.safeParse({ customer_id: cid, operations: [{ create: { campaign, label } }] }).success).toBe(
      true,
    );
    expect(campaignLabels.safeParse({ customer_id: cid, operations: [{ create: { campaign } }] }).success).toBe(false);
    expect(
      campaignLabels.safeParse({ customer_id: cid, operations: [{ create: { campaign, label: 'labels/9' } }] }).success,
    ).toBe(false);
    const adGroupLabels = params('ad_group_labels', 'create');
    expect(adGroupLabels.safeParse({ customer_id: cid, operations: [{ create: { adGroup, label } }] }).success).toBe(
      true,
    );
    expect(adGroupLabels.safeParse({ customer_id: cid, operations: [{ create: { campaign, label } }] }).success).toBe(
      false,
    );
  });

  it('keys segmented rows per resource and segment values', () => {
    const day = (date: string) => ({ campaign: { resourceName: campaign, id: '42' }, segments: { date } });
    expect(googleAdsRowKey(day('2024-01-01'), 'campaign')).toBe(`${campaign}|date=2024-01-01`);
    expect(googleAdsRowKey(day('2024-01-01'), 'campaign')).not.toBe(googleAdsRowKey(day('2024-01-02'), 'campaign'));
    expect(
      googleAdsRowKey(
        { campaign: { resourceName: campaign }, segments: { hour: 5, date: '2024-01-01', adNetworkType: 'SEARCH' } },
        'campaign',
      ),
    ).toBe(`${campaign}|adNetworkType=SEARCH|date=2024-01-01|hour=5`);
    expect(googleAdsRowKey({ customer: { resourceName: `customers/${cid}` } }, 'customer')).toBe(`customers/${cid}`);
    expect(googleAdsRowKey({ segments: { date: '2024-01-01' } }, 'campaign')).toBeNull();
    expect(entities.campaigns?.recordKey).toBe('_row_key');
    expect(entities.campaign_labels?.recordKey).toBe('campaignLabel.resourceName');
  });

  it('requires the developer token and an OAuth refresh setup', () => {
    const base = { developer_token: 'dev', refresh_token: 'r', client_id: 'c', client_secret: 's' };
    expect(googleAdsCatalog.credentials.safeParse(base).success).toBe(true);
    expect(googleAdsCatalog.credentials.safeParse({ ...base, access_token: 'a', login_customer_id: cid }).success).toBe(
      true,
    );
    expect(googleAdsCatalog.credentials.safeParse({ ...base, login_customer_id: '123-456-7890' }).success).toBe(false);
    expect(googleAdsCatalog.credentials.safeParse({ ...base, developer_token: undefined }).success).toBe(false);
    expect(googleAdsCatalog.credentials.safeParse({ developer_token: 'dev', access_token: 'a' }).success).toBe(false);
  });

  it('takes the customer ids to replicate from config', () => {
    expect(googleAdsCatalog.config.safeParse({}).success).toBe(true);
    expect(googleAdsCatalog.config.safeParse({ customer_ids: [cid, '0987654321'] }).success).toBe(true);
    expect(googleAdsCatalog.config.safeParse({ customer_ids: [] }).success).toBe(false);
    expect(googleAdsCatalog.config.safeParse({ customer_ids: [cid, cid] }).success).toBe(false);
    expect(googleAdsCatalog.config.safeParse({ customer_ids: ['123'] }).success).toBe(false);
    expect(googleAdsCatalog.replicationConfig.safeParse({ start_date: '2024-01-01T00:00:00Z' }).success).toBe(true);
  });
});
