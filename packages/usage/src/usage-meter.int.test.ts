import { randomUUID } from 'node:crypto';
import { ClientsRepository, createDatabase, ensureDatabaseExists, migrateToLatest, UsageRepository } from '@conduit/db';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuotaExceededError } from './quota-exceeded.ts';
import { Quotas } from './quotas.ts';
import { UsageMeter } from './usage-meter.ts';

/** A database of its own on the shared Postgres (DATABASE_URL's server), dropped afterwards. */
const serverUrl = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/conduit_test');
const name = `conduit_usage_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const databaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();
const HOUR = 3_600_000;
const NOON = Date.parse('2026-03-10T12:00:00Z');

let db: ReturnType<typeof createDatabase>;
let rows: UsageRepository;

beforeAll(async () => {
  await ensureDatabaseExists(databaseUrl);
  db = createDatabase(databaseUrl, 2);
  await migrateToLatest(db);
  const clients = new ClientsRepository(db);
  await clients.upsertOrganization('org-a', 'A');
  await clients.upsertOrganization('org-b', 'B');
  rows = new UsageRepository(db);
});

afterAll(async () => {
  await db?.destroy();
  const admin = new pg.Client({
    connectionString: Object.assign(new URL(serverUrl), { pathname: '/postgres' }).toString(),
  });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.end();
});

describe('UsageMeter against Postgres', () => {
  it('adds two processes’ counters into one row per organization, connector, hour and metric', async () => {
    let now = NOON + 10 * 60_000;
    const first = new UsageMeter(rows, { now: () => now });
    const second = new UsageMeter(rows, { now: () => now });
    for (let i = 0; i < 3; i++) first.add('org-a', 'c1', 'api_search');
    second.add('org-a', 'c1', 'api_search', 4);
    second.add('org-a', undefined, 'api_other');
    first.add('org-b', 'c2', 'records_synced', 250);
    now += HOUR; // the next hour: a row of its own
    first.add('org-a', 'c1', 'api_search');
    await Promise.all([first.flush(), second.flush()]);
    await first.flush(); // nothing left: adds nothing twice
    const hours = await rows.buckets({
      organizationId: 'org-a',
      from: new Date(NOON),
      to: new Date(NOON + 2 * HOUR),
      granularity: 'hour',
    });
    expect(hours.map((h) => [h.start.toISOString(), h.metric, h.value])).toEqual([
      ['2026-03-10T12:00:00.000Z', 'api_other', 1],
      ['2026-03-10T12:00:00.000Z', 'api_search', 7],
      ['2026-03-10T13:00:00.000Z', 'api_search', 1],
    ]);
    const day = await rows.buckets({
      organizationId: 'org-a',
      from: new Date(NOON - 12 * HOUR),
      to: new Date(NOON + 12 * HOUR),
      granularity: 'day',
      connectorId: 'c1',
    });
    expect(day.map((d) => [d.start.toISOString(), d.metric, d.value])).toEqual([
      ['2026-03-10T00:00:00.000Z', 'api_search', 8],
    ]);
  });

  it('knows the day’s requests of every process after a flush, its own at once', async () => {
    const now = Date.parse('2026-04-01T08:00:00Z');
    const first = new UsageMeter(rows, { now: () => now });
    const second = new UsageMeter(rows, { now: () => now });
    first.add('org-a', 'c1', 'api_execute', 5);
    first.add('org-a', 'c1', 'upstream_requests', 50); // not a request of the API
    expect(first.requestsToday('org-a')).toBe(5);
    second.add('org-a', 'c1', 'api_sql', 2);
    await second.flush();
    await first.flush();
    expect(first.requestsToday('org-a')).toBe(7);
    await second.flush();
    expect(second.requestsToday('org-a')).toBe(7);
    expect(first.requestsToday('org-b')).toBe(0);
  });

  it('removes the hours before the retention and keeps the rest', async () => {
    const meter = new UsageMeter(rows, { now: () => Date.parse('2020-01-01T00:30:00Z') });
    meter.add('org-b', 'old', 'api_changes');
    await meter.close();
    expect(await rows.purgeBefore(new Date('2021-01-01T00:00:00Z'))).toBe(1);
    const left = await rows.totalsSince(new Date(0), ['org-a']);
    expect(left.get('org-a')?.get('api_search')).toBe(8);
  });
});

describe('Quotas against Postgres', () => {
  it('applies the operator’s quota over the default and names the quota, its limit and what is used', async () => {
    let now = NOON;
    const quotas = new Quotas(rows, { connectors: 10, definitions: 20 }, { now: () => now });
    await quotas.checkQuota('org-a', 'definitions', 19);
    await rows.setQuota('org-a', 'definitions', 2);
    await quotas.checkQuota('org-a', 'definitions', 5); // cached for a few seconds
    now += 6_000;
    const refused = await quotas.checkQuota('org-a', 'definitions', 2).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(QuotaExceededError);
    expect(refused).toMatchObject({ quota: 'definitions', limit: 2, used: 2, status: 403, code: 'quota_exceeded' });
    // Another organization keeps the default.
    await quotas.checkQuota('org-b', 'definitions', 19);
    await rows.setQuota('org-a', 'definitions', null);
    now += 6_000;
    await quotas.checkQuota('org-a', 'definitions', 19);
  });

  it('answers requests_per_day with 429 and the seconds until the next UTC day', () => {
    const error = new QuotaExceededError('requests_per_day', 100, 100, Date.parse('2026-03-10T23:59:00Z'));
    expect([error.status, error.retryAfterSeconds]).toEqual([429, 60]);
  });
});
