import { envSuffix } from '@conduit/connectors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchAllRows, waitForEntity } from '../harness/connector-status.ts';
import { ALL_ENTITIES_AT_ONCE, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import type { GoogleAdsData } from '../simulators/google-ads/data.ts';
import { campaignDayKeys, segmentParts } from '../simulators/google-ads/rows.ts';
import { SIMULATORS } from '../simulators/index.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import type { PaypalData } from '../simulators/paypal-transaction/data.ts';

type Row = Record<string, unknown>;

/** Every array of records inside a simulator's data (arrays, and arrays inside Maps), to edit and delete in place. */
function recordLists(data: unknown): Row[][] {
  const lists: Row[][] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) lists.push(value as Row[]);
    else if (value instanceof Map) for (const v of value.values()) visit(v);
  };
  for (const value of Object.values(data as Record<string, unknown>)) visit(value);
  return lists;
}

function locate(data: unknown, key: string, id: string): { list: Row[]; record: Row } {
  for (const list of recordLists(data)) {
    const record = list.find((r) => String(r[key]) === id);
    if (record) return { list, record };
  }
  throw new Error(`record ${id} not found in the simulator's data`);
}

/** Applies an upstream edit (that keeps the cursor field) and deletion; returns the edited field's path and value. */
type Change = (data: unknown, edited: string, deleted: string) => { path: string; value: string } | null;

/** Sentry, incident.io: the records are flat arrays in the simulator's data, found by `key`. */
function flat(key: string, field: string): Change {
  return (data, editedId, deletedId) => {
    const edited = locate(data, key, editedId);
    const deleted = locate(data, key, deletedId);
    deleted.list.splice(deleted.list.indexOf(deleted.record), 1);
    edited.record[field] = 'edited upstream, cursor unchanged';
    return { path: field, value: 'edited upstream, cursor unchanged' };
  };
}

/**
 * Google Ads campaign rows (`<resourceName>|adNetworkType=<n>|date=<YYYY-MM-DD>|hour=<h>`): more clicks on one
 * day (spread over its hours and networks), and one day gone with all its rows.
 */
const adsRows: Change = (data, editedKey, deletedKey) => {
  const { stats } = data as GoogleAdsData;
  const dayOf = (key: string) => {
    const [resourceName, date] = [key.split('|')[0]!, /\|date=([^|]+)/.exec(key)![1]!];
    const days = stats.get(resourceName)!;
    return { resourceName, days, index: days.findIndex((s) => s.date === date) };
  };
  const edited = dayOf(editedKey);
  // Same segments.date, new metrics: what a late conversion or invalid-click correction does to a past day.
  const day = { ...edited.days[edited.index]!, clicks: edited.days[edited.index]!.clicks + 6000 };
  edited.days[edited.index] = day;
  const deleted = dayOf(deletedKey);
  deleted.days.splice(deleted.index, 1);
  const parts = segmentParts(day, true, true);
  const part = parts[campaignDayKeys(edited.resourceName, day).indexOf(editedKey)]!;
  return { path: 'metrics.clicks', value: String(part.stat.clicks) };
};

/** The connector's _row_key is not in the search copy: rebuilt from the campaign and its segments. */
const adsRowKey = (r: Row) =>
  `${String(at(r, 'campaign.resource_name'))}|adNetworkType=${String(at(r, 'segments.ad_network_type'))}` +
  `|date=${String(at(r, 'segments.date'))}|hour=${String(at(r, 'segments.hour'))}`;

/** Two rows of different campaign-days: removing one day's rows leaves the other's. */
const adsApart = (a: string, b: string) =>
  a.replace(/\|hour=.*|\|adNetworkType=[^|]*/g, '') !== b.replace(/\|hour=.*|\|adNetworkType=[^|]*/g, '');

/** PayPal transactions: a status change that leaves transaction_updated_date where it was. */
const paypalStatus: Change = (data, editedId) => {
  const { transactions } = data as PaypalData;
  const edited = transactions.find((t) => t.transaction_info.transaction_id === editedId)!;
  const status = edited.transaction_info.transaction_status === 'V' ? 'S' : 'V';
  edited.transaction_info.transaction_status = status;
  return { path: 'transaction_info.transaction_status', value: status };
};

/**
 * Per kind whose incremental cursor misses edits or deletions (catalog changeCapture): an upstream edit that does
 * not move the cursor field, and an upstream deletion, both reach search after a full pass.
 */
const CASES: readonly {
  kind: string;
  entity: string;
  /** The record key of a record as search returns it (the simulator's expectedKeys form). */
  keyOf: (record: Row) => string;
  deletes: boolean;
  change: Change;
  /** Whether the change can delete one record and keep the other (default: any two records). */
  apart?: (edited: string, deleted: string) => boolean;
}[] = [
  // Sentry issues: resolving an issue does not move lastSeen; deleted issues are no longer listed.
  { kind: 'Sentry', entity: 'issues', keyOf: (r) => String(r.id), deletes: true, change: flat('id', 'title') },
  // incident.io incidents: an incident deleted in the dashboard is no longer listed.
  { kind: 'Incident-Io', entity: 'incidents', keyOf: (r) => String(r.id), deletes: true, change: flat('id', 'name') },
  // Google Ads campaign-days (changeCapture dailyRows: seesEdits false): metrics of a past segments.date change
  // (conversion window) and a removed row vanishes, neither visible to a read from the segments.date cursor.
  { kind: 'Google-Ads', entity: 'campaigns', keyOf: adsRowKey, deletes: true, change: adsRows, apart: adsApart },
  // PayPal transactions (changeCapture seesEdits false): start_date/end_date filter on the initiation date, so a
  // later status change needs the full pass. No deletion case: transactions are never deleted, a refund or
  // reversal is a transaction of its own (catalog changeCapture source:
  // https://developer.paypal.com/docs/api/transaction-search/v1/search-get/).
  {
    kind: 'Paypal-Transaction',
    entity: 'transactions',
    keyOf: (r) => String(at(r, 'transaction_info.transaction_id')),
    deletes: false,
    change: paypalStatus,
  },
];
// Not here: Orb (test/e2e/change-capture.test.ts); Typeform responses (submitted responses are not edited, and a
// deletion case costs ~35 s under its simulator's 2 req/s limit); Zendesk Talk calls (changeCapture updatedSince:
// the incremental export sees edits and deletions, no full pass needed).

const at = (record: Row, path: string): unknown =>
  path.split('.').reduce<unknown>((v, k) => (v as Row | undefined)?.[k], record);

// The kinds side by side: each its own platform and simulator, and most of each case is waiting for a sync.
describe.concurrent.each(CASES)('$kind $entity: edits and deletions reach search after a full pass', (c) => {
  let sim: SimulatorHandle & { data?: unknown };
  let platform: TestPlatform;
  let id: string;

  beforeAll(async () => {
    sim = await SIMULATORS[c.kind]!({ size: 4 });
    const suffix = envSuffix(c.kind);
    platform = await startTestPlatform({
      overrides: {
        baseUrls: { [suffix]: sim.baseUrl },
        tokenUrls: sim.tokenUrl ? { [suffix]: sim.tokenUrl } : {},
        // The simulators enforce no plan's limit: paced by the upstream budget (the vendor's published rate, or a
        // cautious one where none is published), Google Ads' cases took 29 of this file's 38 s waiting on it.
        rateLimits: { [suffix]: 1000 },
      },
      env: ALL_ENTITIES_AT_ONCE,
    });
    const created = await platform.call('POST', '/api/v1/integrations/connectors', {
      customer_name: 'cc-kinds',
      connector_type: c.kind,
      name: c.entity,
      credentials: sim.credentials,
      config: sim.config,
      replication_config: sim.replicationConfig,
    });
    expect(created.status, await created.clone().text()).toBe(201);
    id = ((await created.json()) as { connector_id: string }).connector_id;
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await sim?.close();
  });

  it('after a full pass', async () => {
    const first = await waitForEntity(platform, id, c.entity, (s) => s.status === 'ready' && !s.running, 90_000);
    const keys = [...new Set(sim.expectedKeys(c.entity))];
    expect(keys.length).toBeGreaterThan(2);
    const edited = keys[0]!;
    const deleted = keys.find((k) => k !== edited && (c.apart?.(edited, k) ?? true))!;
    // Both records are in the copy before the upstream change, so neither assertion below can pass vacuously.
    const before = new Set((await searchAllRows(platform, id, c.entity)).map(c.keyOf));
    expect(before.has(edited) && before.has(deleted)).toBe(true);
    const change = c.change(sim.data, edited, deleted);

    const sync = await platform.call('POST', `/api/v1/integrations/connectors/${id}/sync`, {
      entity: c.entity,
      mode: 'full',
    });
    expect(sync.status).toBe(202);
    await waitForEntity(platform, id, c.entity, (s) => s.last_success_at !== first.last_success_at && !s.running);
    const rows = await searchAllRows(platform, id, c.entity);
    const byKey = new Map(rows.map((r) => [c.keyOf(r), r]));
    if (c.deletes) expect(byKey.has(deleted)).toBe(false);
    expect(byKey.has(edited)).toBe(true);
    if (change) expect(String(at(byKey.get(edited)!, change.path))).toBe(change.value);
  }, 120_000);
});
