import { describe, expect, it } from 'vitest';
import { actionParams } from '../../core/catalog.ts';
import type { FieldSpec } from '../../core/field-spec.ts';
import { instantOf, paypalTransactionCatalog } from './catalog.ts';

const { entities } = paypalTransactionCatalog;

const params = (entity: string, action: 'list' | 'get') => actionParams(entities, entity, action);

function everyNonNull(spec: FieldSpec): boolean {
  if (spec.nullable) return false;
  if (spec.type === 'object') return Object.values(spec.fields ?? {}).every(everyNonNull);
  if (spec.type === 'array') return spec.items ? everyNonNull(spec.items) : true;
  return true;
}

const HOUR = 3600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('PayPal catalog', () => {
  it('has the seven entities of its contract, all searchable, with plain (non-null) types', () => {
    // The entity names the catalog lists.
    const specified =
      'balances list_disputes list_payments list_products search_invoices show_product_details transactions';
    expect(Object.keys(entities).sort()).toEqual(specified.split(/\s+/).sort());
    for (const entity of Object.values(entities)) {
      expect(entity.searchable, entity.name).toBeDefined();
      expect(entity.sync, entity.name).toBeDefined();
      for (const [name, spec] of Object.entries({ ...entity.record, ...entity.searchable })) {
        expect(everyNonNull(spec), `${entity.name}.${name}`).toBe(true);
      }
    }
    expect(entities.show_product_details?.actions).toHaveProperty('get');
    expect(entities.show_product_details?.actions).not.toHaveProperty('list');
    expect(entities.show_product_details?.sync?.parent).toEqual({ entity: 'list_products', param: 'id', from: 'id' });
  });

  it('keys transactions by transaction_info.transaction_id and replicates on the update date', () => {
    expect(entities.transactions?.recordKey).toBe('transaction_info.transaction_id');
    expect(entities.transactions?.sync).toEqual({
      mode: 'incremental',
      cursorField: 'transaction_info.transaction_updated_date',
    });
    const info = entities.transactions?.searchable?.transaction_info;
    expect(info?.type === 'object' && info.fields?.transaction_updated_date?.type).toBe('datetime');
    expect(Object.keys(entities.transactions?.searchable ?? {}).sort()).toEqual(
      [
        'auction_info',
        'cart_info',
        'incentive_info',
        'payer_info',
        'shipping_info',
        'store_info',
        'transaction_id',
        'transaction_info',
        'transaction_initiation_date',
        'transaction_updated_date',
      ].sort(),
    );
  });

  it('declares searchable fields that are not record fields', () => {
    expect(entities.list_disputes?.searchable?.updated_time_cut?.type).toBe('datetime');
    expect(entities.list_disputes?.record.updated_time_cut).toBeUndefined();
    expect(entities.search_invoices?.searchable?.gratuity?.type).toBe('object');
    expect(entities.search_invoices?.searchable?.last_update_time?.type).toBe('datetime');
    expect(entities.search_invoices?.searchable?.items).toBeUndefined();
    expect(Object.keys(entities.search_invoices?.searchable ?? {})).toHaveLength(14);
  });

  it("validates the transactions list (the catalog's limits)", () => {
    const list = params('transactions', 'list');
    const ok = { start_date: '2024-01-01T00:00:00Z', end_date: '2024-01-31T23:59:59Z' };
    expect(list.safeParse(ok).success).toBe(true);
    expect(
      list.safeParse({ start_date: '2024-01-01T00:00:00-0700', end_date: '2024-02-01T00:00:00-0700' }).success,
    ).toBe(true);
    expect(list.safeParse({ start_date: ok.start_date }).success).toBe(false);
    expect(list.safeParse({ ...ok, start_date: '2024-01-01T00:00Z' }).success).toBe(false);
    expect(list.safeParse({ ...ok, end_date: '2024-01-02' }).success).toBe(false);
    const tooLong = list.safeParse({ ...ok, end_date: '2024-02-01T00:00:01Z' });
    expect(tooLong.success).toBe(false);
    expect(tooLong.error?.issues[0]?.path).toEqual(['end_date']);
    const backwards = list.safeParse({ start_date: '2024-01-02T00:00:00Z', end_date: '2024-01-01T00:00:00Z' });
    expect(backwards.error?.issues[0]?.path).toEqual(['end_date']);
    expect(list.safeParse({ ...ok, end_date: '2024-01-01T00:00:00+01:00' }).success).toBe(false);
    expect(list.safeParse({ ...ok, transaction_id: '1'.repeat(17) }).success).toBe(true);
    expect(list.safeParse({ ...ok, transaction_id: '1'.repeat(19) }).success).toBe(true);
    expect(list.safeParse({ ...ok, transaction_id: '1'.repeat(16) }).success).toBe(false);
    expect(list.safeParse({ ...ok, transaction_id: '1'.repeat(20) }).success).toBe(false);
    for (const status of ['D', 'P', 'S', 'V'])
      expect(list.safeParse({ ...ok, transaction_status: status }).success).toBe(true);
    expect(list.safeParse({ ...ok, transaction_status: 'X' }).success).toBe(false);
    expect(list.safeParse({ ...ok, page_size: 500, page: 1 }).success).toBe(true);
    expect(list.safeParse({ ...ok, page_size: 501 }).success).toBe(false);
    expect(list.safeParse({ ...ok, page_size: 0 }).success).toBe(false);
    expect(list.safeParse({ ...ok, page: 0 }).success).toBe(false);
    expect(list.safeParse({ ...ok, balance_affecting_records_only: 'N' }).success).toBe(true);
    expect(list.safeParse({ ...ok, balance_affecting_records_only: 'yes' }).success).toBe(false);
    expect(list.safeParse({ ...ok, fields: 'all' }).success).toBe(true);
    expect(list.safeParse({ ...ok, fields: 'transaction_info,payer_info' }).success).toBe(true);
    expect(list.safeParse({ ...ok, fields: 'transaction_info,everything' }).success).toBe(false);
    expect(list.safeParse({ ...ok, transaction_currency: 'usd' }).success).toBe(false);
    expect(list.safeParse({ ...ok, transaction_type: 'T0006' }).success).toBe(true);
    expect(list.safeParse({ ...ok, unknown: 1 }).success).toBe(false);
  });

  it('enforces the page size limits of the other lists', () => {
    expect(params('list_payments', 'list').safeParse({ count: 20 }).success).toBe(true);
    expect(params('list_payments', 'list').safeParse({ count: 21 }).success).toBe(false);
    expect(params('list_disputes', 'list').safeParse({ page_size: 50 }).success).toBe(true);
    expect(params('list_disputes', 'list').safeParse({ page_size: 51 }).success).toBe(false);
    expect(params('list_products', 'list').safeParse({ page_size: 20, page: 1 }).success).toBe(true);
    expect(params('list_products', 'list').safeParse({ page_size: 21 }).success).toBe(false);
    expect(params('list_products', 'list').safeParse({ page: 0 }).success).toBe(false);
    const invoices = params('search_invoices', 'list');
    expect(
      invoices.safeParse({
        page_size: 100,
        creation_date_range: { start: '2024-01-01T00:00:00Z', end: '2024-02-01T00:00:00Z' },
      }).success,
    ).toBe(true);
    expect(invoices.safeParse({ page_size: 101 }).success).toBe(false);
    expect(invoices.safeParse({ creation_date_range: { start: '2024-01-01T00:00:00Z' } }).success).toBe(false);
    expect(params('balances', 'list').safeParse({ currency_code: 'EUR' }).success).toBe(true);
    expect(params('balances', 'list').safeParse({ currency_code: 'EURO' }).success).toBe(false);
    expect(params('balances', 'list').safeParse({ as_of_time: iso(Date.now() - 4 * 366 * 24 * HOUR) }).success).toBe(
      false,
    );
    expect(params('show_product_details', 'get').safeParse({}).success).toBe(false);
  });

  it('bounds start_date between 3 years ago and 12 hours before now', () => {
    const { replicationConfig } = paypalTransactionCatalog;
    const now = Date.now();
    expect(replicationConfig.safeParse({ start_date: iso(now - 13 * HOUR) }).success).toBe(true);
    expect(replicationConfig.safeParse({ start_date: iso(now - 2 * 365 * 24 * HOUR) }).success).toBe(true);
    expect(replicationConfig.safeParse({ start_date: iso(now - 11 * HOUR) }).success).toBe(false);
    expect(replicationConfig.safeParse({ start_date: iso(now + HOUR) }).success).toBe(false);
    expect(replicationConfig.safeParse({ start_date: iso(now - 3 * 366 * 24 * HOUR) }).success).toBe(false);
    expect(replicationConfig.safeParse({ start_date: 'last week' }).success).toBe(false);
  });

  it('needs client_id and client_secret', () => {
    const { credentials } = paypalTransactionCatalog;
    expect(credentials.safeParse({ client_id: 'c', client_secret: 's' }).success).toBe(true);
    expect(credentials.safeParse({ client_id: 'c', client_secret: 's', access_token: 'a' }).success).toBe(true);
    expect(credentials.safeParse({ access_token: 'a' }).success).toBe(false);
    expect(credentials.safeParse({ client_id: 'c' }).success).toBe(false);
  });

  it('reads PayPal offsets without a colon', () => {
    expect(instantOf('2024-02-10T00:01:56+0000')).toBe(Date.parse('2024-02-10T00:01:56Z'));
    expect(instantOf('2024-02-30T00:00:00Z')).toBeNaN();
  });
});
