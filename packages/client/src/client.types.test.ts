/**
 * Type tests: checked by `tsc -p .` (./dev test). Each `@ts-expect-error` line must fail to compile, or tsc
 * reports the directive as unused; the other calls must compile. Nothing here is sent: the calls sit in functions
 * that are never invoked.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { Conduit } from './conduit.ts';
import type { ConduitProblem } from './problem.ts';
import type { Bucket } from './search-types.ts';
import type { Download, RecordOf } from './types.ts';

const conduit = new Conduit({ baseUrl: 'http://127.0.0.1:1', clientId: 'id', clientSecret: 'secret' });
const orb = conduit.connector('connector-id', 'Orb');
const paypal = conduit.connector('connector-id', 'Paypal-Transaction');
const zendesk = conduit.connector('connector-id', 'Zendesk-Talk');
const drive = conduit.connector('connector-id', 'Google-Drive');

describe('the typed example of the README', () => {
  it('a misspelt search field on Orb invoices does not compile; the correct spelling does', () => {
    const correct = () =>
      orb.execute({ entity: 'invoices', action: 'search', params: { query: { filter: { eq: { status: 'paid' } } } } });
    const misspelt = () =>
      // @ts-expect-error 'stauts' is not a searchable field of Orb invoices
      orb.execute({ entity: 'invoices', action: 'search', params: { query: { filter: { eq: { stauts: 'paid' } } } } });
    expectTypeOf(correct).returns.resolves.toHaveProperty('data');
    expectTypeOf(misspelt).returns.resolves.toHaveProperty('data');
  });
});

describe('search filters are typed per entity', () => {
  it('checks operators against field types (docs/search.md)', () => {
    const calls = () => [
      orb.search('invoices', {
        query: {
          filter: {
            and: [{ gte: { created_at: '2024-01-01T00:00:00Z' } }, { like: { memo: '%late%' } }],
            or: [{ in: { status: ['paid', 'issued'] } }, { not: { eq: { 'subscription.id': 'sub_1' } } }],
            fuzzy: { memo: 'overdue notice' },
            gt: { total: '100' },
          },
          sort: [{ created_at: 'desc' }, { id: 'asc' }],
        },
        limit: 10,
        fields: ['id', 'status', 'subscription.plan'],
      }),
      // @ts-expect-error gt does not apply to a boolean field
      zendesk.search('phone_numbers', { query: { filter: { gt: { external: true } } } }),
      // @ts-expect-error a decimal amount takes digits ("8387.12") or a number, not words
      orb.search('invoices', { query: { filter: { gt: { total: 'lots' } } } }),
      // @ts-expect-error like applies to strings, not to decimal amounts
      orb.search('invoices', { query: { filter: { like: { total: '1%' } } } }),
      // @ts-expect-error an unknown field under gt
      orb.search('invoices', { query: { filter: { gt: { amount: 5 } } } }),
      // @ts-expect-error fuzzy applies to strings only
      orb.search('invoices', { query: { filter: { fuzzy: { created_at: 'monday' } } } }),
      // @ts-expect-error not a date-time value
      orb.search('invoices', { query: { filter: { gte: { created_at: 'yesterday' } } } }),
      // @ts-expect-error not one of the status values
      orb.search('invoices', { query: { filter: { eq: { status: 'unpaid' } } } }),
      // @ts-expect-error a number where the field holds strings
      orb.search('invoices', { query: { filter: { eq: { id: 42 } } } }),
      // @ts-expect-error an integer field takes numbers (or their digits), not words
      zendesk.search('phone_numbers', { query: { filter: { eq: { id: 'one' } } } }),
      // @ts-expect-error in takes a list
      orb.search('invoices', { query: { filter: { in: { status: 'paid' } } } }),
      // @ts-expect-error an object cannot be sorted by
      orb.search('invoices', { query: { sort: [{ subscription: 'asc' }] } }),
      // @ts-expect-error sort directions are asc or desc
      orb.search('invoices', { query: { sort: [{ created_at: 'up' }] } }),
      // @ts-expect-error a misspelt projection field
      orb.search('invoices', { query: {}, fields: ['totl'] }),
      // @ts-expect-error query is required
      orb.search('invoices', { limit: 5 }),
    ];
    expectTypeOf(calls).returns.items.resolves.toHaveProperty('meta');
  });

  it('types contains and any from the fields of arrays', () => {
    const calls = () => [
      paypal.search('transactions', {
        query: { filter: { any: { 'cart_info.item_details': { eq: { item_code: 'SKU-1' } } } } },
      }),
      // @ts-expect-error an unknown field inside the array's items
      paypal.search('transactions', { query: { filter: { any: { 'cart_info.item_details': { eq: { sku: 'x' } } } } } }),
      // @ts-expect-error contains does not apply to a string field
      orb.search('invoices', { query: { filter: { contains: { status: 'paid' } } } }),
    ];
    expectTypeOf(calls).returns.items.resolves.toHaveProperty('meta');
  });

  it('types search results with the searchable fields of the record, and those the record does not declare', async () => {
    const ads = conduit.connector('connector-id', 'Google-Ads');
    const campaigns = () => ads.search('campaigns', { query: {} });
    expectTypeOf<Awaited<ReturnType<typeof campaigns>>['data'][number]['campaign_budget']>().toEqualTypeOf<
      { amount_micros?: number } | undefined
    >();
    const page = () => orb.search('invoices', { query: {} });
    expectTypeOf<Awaited<ReturnType<typeof page>>['data'][number]['status']>().toEqualTypeOf<
      'draft' | 'issued' | 'paid' | 'synced' | 'void' | null | undefined
    >();
    expectTypeOf<Awaited<ReturnType<typeof page>>['meta']['cursor']>().toEqualTypeOf<string | null>();
  });
});

describe('aggregations (docs/search.md params.aggregate)', () => {
  it('types aggregation fields and results per entity', () => {
    const dashboard = () =>
      orb.search('invoices', {
        query: { filter: { gte: { created_at: '2024-01-01' } } },
        limit: 0,
        aggregate: {
          by_status: { count_by: 'status', size: 5 },
          revenue: { sum: 'total' },
          latest: { max: 'created_at' },
          per_month: { histogram: 'created_at', interval: 'month' },
        },
      });
    type Aggregations = NonNullable<Awaited<ReturnType<typeof dashboard>>['meta']['aggregations']>;
    expectTypeOf<Aggregations['by_status']>().toEqualTypeOf<Bucket[]>();
    expectTypeOf<Aggregations['per_month']>().toEqualTypeOf<Bucket[]>();
    expectTypeOf<Aggregations['revenue']>().toEqualTypeOf<{ value: number | string | null }>();
    const wrong = () => [
      // @ts-expect-error a misspelt field
      orb.search('invoices', { query: {}, aggregate: { a: { count_by: 'stauts' } } }),
      // @ts-expect-error sum takes numbers and decimals, not a status
      orb.search('invoices', { query: {}, aggregate: { a: { sum: 'status' } } }),
      // @ts-expect-error nor dates (min, max and avg do)
      orb.search('invoices', { query: {}, aggregate: { a: { sum: 'created_at' } } }),
      // @ts-expect-error histogram takes a date field
      orb.search('invoices', { query: {}, aggregate: { a: { histogram: 'total', interval: 'day' } } }),
      // @ts-expect-error a histogram names its interval (the API answers 400 without one)
      orb.search('invoices', { query: {}, aggregate: { a: { histogram: 'created_at' } } }),
      // @ts-expect-error no yearly buckets
      orb.search('invoices', { query: {}, aggregate: { a: { histogram: 'created_at', interval: 'year' } } }),
    ];
    expectTypeOf(wrong).returns.items.resolves.toHaveProperty('meta');
  });
});

describe('entities, actions and params', () => {
  it('rejects unknown entities and actions, and actions an entity does not have', () => {
    const calls = () => [
      orb.execute({ entity: 'customers', action: 'list', params: { limit: 10 } }),
      orb.execute({ entity: 'customers', action: 'list' }),
      orb.execute({ entity: 'customers', action: 'get', params: { customer_id: 'c_1' } }),
      // @ts-expect-error Orb has no 'invoice' entity
      orb.execute({ entity: 'invoice', action: 'list' }),
      // @ts-expect-error Orb customers cannot be deleted
      orb.execute({ entity: 'customers', action: 'delete', params: { customer_id: 'c_1' } }),
      drive.execute({
        entity: 'files',
        action: 'search',
        params: { query: { filter: { like: { name: '%report%' } } } },
      }),
      // @ts-expect-error Google Drive drives are not searchable
      drive.execute({ entity: 'drives', action: 'search', params: { query: {} } }),
    ];
    expectTypeOf<Awaited<ReturnType<typeof calls>[number]>>().toMatchTypeOf<{ data: unknown }>();
  });

  it('checks params per action', () => {
    const calls = () => [
      orb.execute({ entity: 'invoices', action: 'list', params: { status: 'paid', limit: 5 } }),
      // @ts-expect-error a status Orb does not have
      orb.execute({ entity: 'invoices', action: 'list', params: { status: 'overdue' } }),
      // @ts-expect-error a misspelt parameter
      orb.execute({ entity: 'invoices', action: 'list', params: { limt: 5 } }),
      // @ts-expect-error get needs the id
      orb.execute({ entity: 'invoices', action: 'get', params: {} }),
      // @ts-expect-error a required parameter left out
      orb.execute({ entity: 'invoices', action: 'get' }),
    ];
    expectTypeOf<Awaited<ReturnType<typeof calls>[number]>>().toMatchTypeOf<{ data: unknown }>();
  });

  it('types results: records for get and list, a web stream for downloads', () => {
    const get = () => orb.execute({ entity: 'invoices', action: 'get', params: { invoice_id: 'inv_1' } });
    expectTypeOf<Awaited<ReturnType<typeof get>>['data']>().toEqualTypeOf<RecordOf<'Orb', 'invoices'>>();
    const list = () => orb.execute({ entity: 'customers', action: 'list' });
    expectTypeOf<Awaited<ReturnType<typeof list>>['meta']>().toEqualTypeOf<{ next_cursor: string | null }>();
    const download = () =>
      drive.execute({ entity: 'files', action: 'download', params: { fileId: 'f1', alt: 'media' } });
    expectTypeOf<Awaited<ReturnType<typeof download>>>().toEqualTypeOf<Download>();
    expectTypeOf<Download['body']>().toEqualTypeOf<ReadableStream<Uint8Array>>();
  });

  it('types connector creation by kind, and the iterators', () => {
    const acme = { customer_name: 'acme', replication_config: { start_date: '2024-01-01T00:00:00Z' } };
    const calls = () => [
      conduit.connectors.create({ ...acme, connector_type: 'Orb', name: 'billing', credentials: { api_key: 'k' } }),
      conduit.connectors.create({
        ...acme,
        connector_type: 'Orb',
        name: 'billing',
        // @ts-expect-error Orb credentials are an api_key
        credentials: { token: 'k' },
      }),
      // @ts-expect-error Zendesk Talk needs its subdomain (config)
      conduit.connectors.create({
        ...acme,
        connector_type: 'Zendesk-Talk',
        name: 'phones',
        credentials: { email: 'a@b.c', api_token: 't' },
      }),
      orb.sync({ entity: 'invoices', mode: 'full' }),
      // @ts-expect-error only replicated entities sync
      drive.sync({ entity: 'about' }),
      conduit.connectors.sync('connector-id', { entity: 'invoices', mode: 'incremental' }),
    ];
    expectTypeOf<Awaited<ReturnType<typeof calls>[number]>>().toMatchTypeOf<{ connector_id: string }>();
    expectTypeOf(orb.listAll('customers')).toEqualTypeOf<AsyncGenerator<RecordOf<'Orb', 'customers'>>>();
    expectTypeOf(orb.searchAll('invoices', { query: {} })).toMatchTypeOf<AsyncGenerator<{ id?: string }>>();
    expectTypeOf<ConduitProblem['errors'][number]>().toEqualTypeOf<{ path: string; message: string }>();
  });
});

describe('sql() is typed from the catalog', () => {
  it('checks the table and the double-quoted columns of a literal query', () => {
    const calls = () => [
      orb.sql('SELECT status, COUNT(*) AS n FROM invoices GROUP BY status'),
      orb.sql('SELECT "subscription.id", "total" FROM invoices WHERE "status" = \'paid\'', { limit: 10 }),
      orb.sql(`SELECT id FROM ${'customers' as string}`),
      // @ts-expect-error 'invoice' is not an entity of Orb
      orb.sql('SELECT id FROM invoice'),
      // @ts-expect-error "stauts" is not a column of Orb invoices
      orb.sql('SELECT "stauts" FROM invoices'),
      // @ts-expect-error calls is not a searchable entity of Orb
      orb.sql('SELECT * FROM calls'),
    ];
    expectTypeOf(calls).returns.items.resolves.toHaveProperty('meta');
  });
});
