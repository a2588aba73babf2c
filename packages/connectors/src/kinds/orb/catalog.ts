import { z } from 'zod';
import { defineCatalog, entity, fieldCursor, type UpstreamSpec } from '../../core/catalog.ts';
import { isoDateTime, noConfig, pathId, startDateReplicationConfig } from '../../core/common-schemas.ts';
import { type FieldMap, pick, t } from '../../core/field-spec.ts';
import { fields } from '../../core/fields.ts';
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
const meta: FieldMap = fields`next_cursor: string`;
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

const customerRecord: FieldMap = fields`
  id!, external_customer_id, name, email: string
  created_at: datetime
  payment_provider, payment_provider_id, timezone: string
  balance: decimal
  currency: string
  shipping_address, billing_address, tax_id: object
  auto_collection: boolean
  metadata: object
`;

const customers = entity({
  name: 'customers',
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
});
// Record field types: Orb sends every timestamp as a string; instants are typed `datetime` so that search
// compares them as instants (Orb sends ISO 8601 date-times for all of them, e.g. 2024-01-31T00:00:00+00:00).

/** States: subscriptions filter status. Orb's subscription.status takes the same values. */
export const SUBSCRIPTION_STATUSES = ['active', 'ended', 'upcoming'] as const;
/** States: invoices filter status. Orb's invoice.status takes the same values. */
export const INVOICE_STATUSES = ['draft', 'issued', 'paid', 'synced', 'void'] as const;

const subscriptionRecord: FieldMap = fields`
  id!: string
  created_at, start_date, end_date: datetime
  status: ${t.string({ enum: SUBSCRIPTION_STATUSES })}
  current_billing_period_start_date, current_billing_period_end_date: datetime
  default_invoice_memo: string
  invoicing_threshold: decimal
  customer, plan, redeemed_coupon, metadata: object
  active_plan_phase_order, net_terms: integer
  fixed_fee_quantity_schedule, price_intervals: array
  auto_collection: boolean
`;

const subscriptions = entity({
  name: 'subscriptions',
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
});

const planRecord: FieldMap = fields`
  id!: string
  created_at: datetime
  name, description, status, default_invoice_memo, currency, external_plan_id, invoicing_currency: string
  net_terms: integer
  prices, plan_phases: array
  product, minimum, maximum, discount, trial_config, metadata: object
`;

const plans = entity({
  name: 'plans',
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
});

const invoiceRecord: FieldMap = fields`
  id!: string
  created_at, invoice_date, due_date: datetime
  invoice_pdf: string
  subtotal, total, amount_due: decimal
  status: ${t.string({ enum: INVOICE_STATUSES })}
  memo: string
  issue_failed_at, sync_failed_at, payment_failed_at, payment_started_at, voided_at, paid_at, issued_at: datetime
  hosted_invoice_url, currency: string
  eligible_to_issue_at: datetime
  invoice_number: string
  line_items, credit_notes, customer_balance_transactions: array
  subscription, customer, discount, minimum, maximum,
  auto_collection, metadata, billing_address, shipping_address: object
  will_auto_issue: boolean
`;

const invoiceDate = isoDateTime.optional();

const invoices = entity({
  name: 'invoices',
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
});

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
