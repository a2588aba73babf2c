import { z } from 'zod';
import type { EntityCatalog, KindCatalog } from '../../core/catalog.ts';
import { noConfig, pathId, startDateReplicationConfig } from '../../core/common-schemas.ts';
import { type FieldMap, notNull, pick, t } from '../../core/field-spec.ts';

// Usage billing (document 2): "incident management and usage billing records declare only the identifier as non-null".
const meta: FieldMap = { next_cursor: t.string() };
const page = { limit: z.int().min(1).max(100).optional(), cursor: z.string().min(1).optional() };

const customerRecord: FieldMap = {
  id: notNull(t.string()),
  external_customer_id: t.string(),
  name: t.string(),
  email: t.string(),
  created_at: t.datetime(),
  payment_provider: t.string(),
  payment_provider_id: t.string(),
  timezone: t.string(),
  balance: t.string(),
  currency: t.string(),
  shipping_address: t.object(),
  billing_address: t.object(),
  tax_id: t.object(),
  auto_collection: t.boolean(),
  metadata: t.object(),
};

const customers: EntityCatalog = {
  name: 'customers',
  recordKey: 'id',
  record: customerRecord,
  meta,
  searchable: pick(customerRecord, [
    'id',
    'external_customer_id',
    'name',
    'email',
    'created_at',
    'payment_provider',
    'payment_provider_id',
    'timezone',
    'shipping_address',
    'billing_address',
  ]),
  actions: {
    list: z.strictObject(page),
    get: z.strictObject({ customer_id: pathId }),
  },
  sync: { mode: 'incremental', cursorField: 'created_at' },
};
// ... (subscriptions, plans, invoices follow the same pattern)

export const orbCatalog: KindCatalog = {
  connectorType: 'Orb',
  purpose: 'usage billing',
  credentials: z.strictObject({ api_key: z.string().min(1) }),
  replicationConfig: startDateReplicationConfig,
  config: noConfig,
  entities: { customers },
};
