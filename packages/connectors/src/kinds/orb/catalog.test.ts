import { describe, expect, it } from 'vitest';
import { actionParams } from '../../core/catalog.ts';
import { orbCatalog } from './catalog.ts';

const { entities } = orbCatalog;

const params = (entity: string, action: 'list' | 'get') => actionParams(entities, entity, action);

describe('Orb catalog', () => {
  it('has the four entities of its contract, each with list, get, search and an incremental sync on created_at', () => {
    expect(Object.keys(entities).sort()).toEqual(['customers', 'invoices', 'plans', 'subscriptions']);
    for (const entity of Object.values(entities)) {
      expect(Object.keys(entity.actions).sort(), entity.name).toEqual(['get', 'list']);
      expect(entity.sync, entity.name).toEqual({ mode: 'incremental', cursorField: 'created_at' });
      expect(entity.meta, entity.name).toEqual({ next_cursor: { type: 'string', nullable: true } });
      expect(entity.record.id?.nullable, entity.name).toBe(false);
      for (const [name, spec] of Object.entries(entity.searchable ?? {})) {
        expect(entity.record[name], `${entity.name}.${name}`).toEqual(spec);
        if (name !== 'id') expect(spec.nullable, `${entity.name}.${name}`).toBe(true);
      }
    }
  });

  it('declares exactly the searchable fields of its contract', () => {
    expect(Object.keys(entities.subscriptions?.searchable ?? {})).toEqual([
      'id',
      'created_at',
      'start_date',
      'end_date',
      'status',
    ]);
    expect(Object.keys(entities.plans?.searchable ?? {})).toEqual([
      'id',
      'created_at',
      'name',
      'description',
      'prices',
      'product',
    ]);
    expect(Object.keys(entities.invoices?.searchable ?? {})).toHaveLength(15);
    expect(Object.keys(entities.customers?.searchable ?? {})).toHaveLength(10);
    expect(entities.invoices?.searchable?.invoice_date?.type).toBe('datetime');
    expect(entities.subscriptions?.searchable?.start_date?.type).toBe('datetime');
  });

  it('validates list filters and page bounds', () => {
    const subs = params('subscriptions', 'list');
    expect(subs.safeParse({ status: 'active', customer_id: 'c1', limit: 100 }).success).toBe(true);
    expect(subs.safeParse({ status: 'cancelled' }).success).toBe(false);
    expect(subs.safeParse({ limit: 0 }).success).toBe(false);
    expect(subs.safeParse({ limit: 101 }).success).toBe(false);
    expect(subs.safeParse({ limit: 1.5 }).success).toBe(false);
    expect(subs.safeParse({ subscription_status: 'active' }).success).toBe(false);

    const invoices = params('invoices', 'list');
    for (const status of ['draft', 'issued', 'paid', 'synced', 'void']) {
      expect(invoices.safeParse({ status }).success, status).toBe(true);
    }
    expect(invoices.safeParse({ status: 'open' }).success).toBe(false);
    expect(
      invoices.safeParse({ invoice_date_gte: '2024-01-01T00:00:00Z', invoice_date_lt: '2024-02-01T00:00:00+01:00' })
        .success,
    ).toBe(true);
    expect(invoices.safeParse({ invoice_date_gt: 'yesterday' }).success).toBe(false);
    expect(params('plans', 'list').safeParse({ status: 'active' }).success).toBe(false);
  });

  it('requires the identifier of every get', () => {
    expect(params('invoices', 'get').safeParse({ invoice_id: 'inv_1' }).success).toBe(true);
    expect(params('invoices', 'get').safeParse({}).success).toBe(false);
    expect(params('plans', 'get').safeParse({ plan_id: '' }).success).toBe(false);
    expect(params('subscriptions', 'get').safeParse({ subscription_id: 's', extra: 1 }).success).toBe(false);
  });
});
