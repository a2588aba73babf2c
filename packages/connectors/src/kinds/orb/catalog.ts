import { z } from 'zod';
import { defineCatalog, type EntityCatalog, fieldCursor, type UpstreamSpec } from '../../core/catalog.ts';
import { isoDateTime, noConfig, pathId, startDateReplicationConfig } from '../../core/common-schemas.ts';
import { type FieldMap, notNull, pick, t } from '../../core/field-spec.ts';
import { orbWebhooks } from './webhooks.ts';

/**
 * Change capture of every Orb list: Orb filters lists by creation time only (`created_at[gt|gte|lt|lte]`;
 * invoices also by invoice_date/due_date; no "updated since" filter exists: Orb API reference, List customers /
 * List invoices, and the orb-billing client's CustomerListParams/InvoiceListParams).
 * An edit (a customer's email, an invoice paid) does not move `created_at`, and a deleted customer simply stops
 * being listed: both are caught by the periodic full pass. Orb documents no listing delay.
 */
const byCreation = fieldCursor(
  { seesEdits: false, seesDeletions: false },
  'Orb API reference (list filters: created_at[gte|gt|lt|lte] only)',
);

// Usage billing: "incident management and usage billing records declare only the identifier as non-null".
const meta: FieldMap = { next_cursor: t.string() };
const page = { limit: z.int().min(1).max(100).optional(), cursor: z.string().min(1).optional() };

/**
 * https://docs.withorb.com/api-reference/pagination: `{data, pagination_metadata: {has_more, next_cursor}}`, newest
 * first, `cursor` = next_cursor. Filters use Orb's bracket syntax (`created_at[gte]`); replication reads pages of 100
 * created since the cursor.
 */
function orbUpstream(path: string, idParam: string, query: Readonly<Record<string, string>> = {}): UpstreamSpec {
  return {
    path,
    records: 'data',
    paging: {
      type: 'cursor',
      param: 'cursor',
      meta: 'next_cursor',
      nextAt: 'pagination_metadata.next_cursor',
      hasMoreAt: 'pagination_metadata.has_more',
    },
    query: { created_at_gte: 'created_at[gte]', ...query },
    get: { path: `${path}/{${idParam}}` },
    read: { params: { limit: 100 }, since: { param: 'created_at_gte', format: 'as_is' } },
  };
}

const customerRecord: FieldMap = {
  id: notNull(t.string()),
  external_customer_id: t.string(),
  name: t.string(),
  email: t.string(),
  created_at: t.datetime(),
  payment_provider: t.string(),
  payment_provider_id: t.string(),
  timezone: t.string(),
  balance: t.decimal(),
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
  upstream: orbUpstream('customers', 'customer_id'),
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
  changeCapture: byCreation,
};
// Record field types: the specification says "strings" for every timestamp; instants are typed `datetime` so that search
// compares them as instants (Orb sends ISO 8601 date-times for all of them, e.g. 2024-01-31T00:00:00+00:00).

/** The specification's "States": subscriptions filter status. Orb's subscription.status takes the same values. */
export const SUBSCRIPTION_STATUSES = ['active', 'ended', 'upcoming'] as const;
/** The specification's "States": invoices filter status. Orb's invoice.status takes the same values. */
export const INVOICE_STATUSES = ['draft', 'issued', 'paid', 'synced', 'void'] as const;

const subscriptionRecord: FieldMap = {
  id: notNull(t.string()),
  created_at: t.datetime(),
  start_date: t.datetime(),
  end_date: t.datetime(),
  status: t.string({ enum: SUBSCRIPTION_STATUSES }),
  current_billing_period_start_date: t.datetime(),
  current_billing_period_end_date: t.datetime(),
  default_invoice_memo: t.string(),
  invoicing_threshold: t.decimal(),
  customer: t.object(),
  plan: t.object(),
  redeemed_coupon: t.object(),
  metadata: t.object(),
  active_plan_phase_order: t.integer(),
  net_terms: t.integer(),
  fixed_fee_quantity_schedule: t.array(),
  price_intervals: t.array(),
  auto_collection: t.boolean(),
};

const subscriptions: EntityCatalog = {
  name: 'subscriptions',
  recordKey: 'id',
  upstream: orbUpstream('subscriptions', 'subscription_id'),
  record: subscriptionRecord,
  meta,
  searchable: pick(subscriptionRecord, ['id', 'created_at', 'start_date', 'end_date', 'status']),
  actions: {
    list: z.strictObject({
      ...page,
      customer_id: pathId.optional(),
      external_customer_id: pathId.optional(),
      status: z.enum(SUBSCRIPTION_STATUSES).optional(),
    }),
    get: z.strictObject({ subscription_id: pathId }),
  },
  // Orb filters subscriptions by created_at[gte].
  sync: { mode: 'incremental', cursorField: 'created_at' },
  changeCapture: byCreation,
};

const planRecord: FieldMap = {
  id: notNull(t.string()),
  created_at: t.datetime(),
  name: t.string(),
  description: t.string(),
  status: t.string(),
  default_invoice_memo: t.string(),
  currency: t.string(),
  external_plan_id: t.string(),
  invoicing_currency: t.string(),
  net_terms: t.integer(),
  prices: t.array(),
  plan_phases: t.array(),
  product: t.object(),
  minimum: t.object(),
  maximum: t.object(),
  discount: t.object(),
  trial_config: t.object(),
  metadata: t.object(),
};

const plans: EntityCatalog = {
  name: 'plans',
  recordKey: 'id',
  upstream: orbUpstream('plans', 'plan_id'),
  record: planRecord,
  meta,
  searchable: pick(planRecord, ['id', 'created_at', 'name', 'description', 'prices', 'product']),
  actions: {
    list: z.strictObject(page),
    get: z.strictObject({ plan_id: pathId }),
  },
  // Orb filters plans by created_at[gte].
  sync: { mode: 'incremental', cursorField: 'created_at' },
  changeCapture: byCreation,
};

const invoiceRecord: FieldMap = {
  id: notNull(t.string()),
  created_at: t.datetime(),
  invoice_date: t.datetime(),
  due_date: t.datetime(),
  invoice_pdf: t.string(),
  subtotal: t.decimal(),
  total: t.decimal(),
  amount_due: t.decimal(),
  status: t.string({ enum: INVOICE_STATUSES }),
  memo: t.string(),
  issue_failed_at: t.datetime(),
  sync_failed_at: t.datetime(),
  payment_failed_at: t.datetime(),
  payment_started_at: t.datetime(),
  voided_at: t.datetime(),
  paid_at: t.datetime(),
  issued_at: t.datetime(),
  hosted_invoice_url: t.string(),
  currency: t.string(),
  eligible_to_issue_at: t.datetime(),
  invoice_number: t.string(),
  line_items: t.array(),
  credit_notes: t.array(),
  customer_balance_transactions: t.array(),
  subscription: t.object(),
  customer: t.object(),
  discount: t.object(),
  minimum: t.object(),
  maximum: t.object(),
  auto_collection: t.object(),
  metadata: t.object(),
  billing_address: t.object(),
  shipping_address: t.object(),
  will_auto_issue: t.boolean(),
};

const invoiceDate = isoDateTime.optional();

const invoices: EntityCatalog = {
  name: 'invoices',
  recordKey: 'id',
  upstream: orbUpstream('invoices', 'invoice_id', {
    invoice_date_gt: 'invoice_date[gt]',
    invoice_date_gte: 'invoice_date[gte]',
    invoice_date_lt: 'invoice_date[lt]',
    invoice_date_lte: 'invoice_date[lte]',
    status: 'status[]',
  }),
  record: invoiceRecord,
  meta,
  searchable: pick(invoiceRecord, [
    'id',
    'created_at',
    'invoice_date',
    'due_date',
    'invoice_pdf',
    'subtotal',
    'total',
    'amount_due',
    'status',
    'memo',
    'paid_at',
    'issued_at',
    'hosted_invoice_url',
    'line_items',
    'subscription',
  ]),
  actions: {
    list: z.strictObject({
      ...page,
      customer_id: pathId.optional(),
      external_customer_id: pathId.optional(),
      subscription_id: pathId.optional(),
      invoice_date_gt: invoiceDate,
      invoice_date_gte: invoiceDate,
      invoice_date_lt: invoiceDate,
      invoice_date_lte: invoiceDate,
      status: z.enum(INVOICE_STATUSES).optional(),
    }),
    get: z.strictObject({ invoice_id: pathId }),
  },
  // The connector replicates invoices through created_at[gte] like the other entities (Orb also filters
  // invoice_date[gte], but an invoice's date can lie before its creation, e.g. backdated invoices).
  sync: { mode: 'incremental', cursorField: 'created_at' },
  changeCapture: byCreation,
};

export const orbCatalog = defineCatalog({
  connectorType: 'Orb',
  copyVersion: {
    by: 'read_instant',
    why: "Orb's customers, subscriptions and plans have `created_at` only (no `updated_at` or revision); an edit changes nothing the copy could order by.",
    source: 'https://docs.withorb.com/api-reference/customer/fetch-customer',
  },
  webhooks: orbWebhooks,
  rateLimit: {
    perSecond: null,
    scope: 'not published: Orb asks to be told before volume changes by an order of magnitude, and answers 429',
    source: 'https://docs.withorb.com/api-reference/rate-limits',
  },
  purpose: 'usage billing',
  credentials: z.strictObject({ api_key: z.string().min(1) }),
  replicationConfig: startDateReplicationConfig,
  config: noConfig,
  entities: { customers, subscriptions, plans, invoices },
});
