import { z } from 'zod';
import {
  defineCatalog,
  type EntityCatalog,
  entity,
  fieldCursor,
  hours,
  type ParamsSchema,
  type UpstreamSpec,
  unpaged,
} from '../../core/catalog.ts';
import { isoDateTime, noConfig, pathId } from '../../core/common-schemas.ts';
import { type FieldMap, type FieldSpec, omit, t } from '../../core/field-spec.ts';
import { fields } from '../../core/fields.ts';

/*
 * Payments = PayPal REST APIs. Sources: the vendor's API reference.
 *
 * Payments ... records declare plain types, so every field here, nested ones included, is non-null.
 * Real PayPal records omit many of them (transaction_info alone differs by event code); the nullability is
 * documentation only and nothing rejects a record for a missing field.
 * Timestamps the vendor sends as strings are `datetime` here so search compares them as instants (PayPal sends
 * `2024-02-10T00:01:56+0000` as well as `...Z`).
 */

/** Non-null at every depth: object sub-fields and array items too (the catalog's "plain types"). */
export function plainDeep(spec: FieldSpec): FieldSpec {
  if (spec.type === 'object') {
    return spec.fields
      ? {
          type: 'object',
          nullable: false,
          fields: Object.fromEntries(Object.entries(spec.fields).map(([k, v]) => [k, plainDeep(v)])),
        }
      : { type: 'object', nullable: false };
  }
  if (spec.type === 'array') {
    return spec.items
      ? { type: 'array', nullable: false, items: plainDeep(spec.items) }
      : { type: 'array', nullable: false };
  }
  return { ...spec, nullable: false };
}

const plain = (fields: FieldMap): FieldMap =>
  Object.fromEntries(Object.entries(fields).map(([name, spec]) => [name, plainDeep(spec)]));

/**
 * Amount objects have currency_code (string) and value (string). The value is a decimal amount
 * ("9.87"), declared `decimal` so that search compares and sums it as money.
 */
const amount = (): FieldSpec => t.object(fields`currency_code: string; value: decimal`);

// ---------------------------------------------------------------------------------------------------------------
// Parameter building blocks
// ---------------------------------------------------------------------------------------------------------------

/** ISO-4217 currency code: three capital letters. */
const currencyCode = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO-4217 currency code of 3 letters, e.g. USD');

/**
 * ISO 8601 date-time WITH seconds (PayPal's limits: "seconds required in both dates"), in the forms PayPal takes:
 * `2024-01-31T00:00:00Z`, `...+01:00` and `...-0700` (PayPal's own form), optional fraction.
 */
const WITH_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$/;

/** The instant of a WITH_SECONDS string (offset `-0700` made `-07:00`), or NaN when it is no valid date. */
export function instantOf(value: string): number {
  const normalized = value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  return isoDateTime.safeParse(normalized).success ? Date.parse(normalized) : Number.NaN;
}

const dateTimeWithSeconds = z
  .string()
  .regex(WITH_SECONDS, 'must be an ISO 8601 date-time with seconds and an offset, e.g. 2024-01-31T00:00:00Z')
  .refine((value) => !Number.isNaN(instantOf(value)), 'is not a valid date-time');

/** Calendar "N years ago" in UTC, from `now`. */
function yearsBefore(now: Date, years: number): number {
  const d = new Date(now.getTime());
  d.setUTCFullYear(d.getUTCFullYear() - years);
  return d.getTime();
}

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

// ---------------------------------------------------------------------------------------------------------------
// balances
// ---------------------------------------------------------------------------------------------------------------

const balancesRecord: FieldMap = plain(fields`
  balances: {
    primary: boolean
    currency: string
    total_balance, available_balance, withheld_balance: ${amount()}
  }[]
  account_id: string
  as_of_time, last_refresh_time: datetime
`);

const balances = entity({
  name: 'balances',
  // GET /v1/reporting/balances answers one object: one record per account.
  recordKey: 'account_id',
  upstream: unpaged('v1/reporting/balances', { object: null }),
  record: balancesRecord,
  actions: {
    list: z.strictObject({
      // PayPal's limits: "balances available for up to the previous three years".
      as_of_time: isoDateTime
        .refine((v) => Date.parse(v) >= yearsBefore(new Date(), 3), 'must lie within the previous three years')
        .optional(),
      currency_code: currencyCode.optional(),
    }),
  },
  // The current balances are a snapshot: every run replaces them.
  sync: { mode: 'full_refresh' },
  // PayPal's limits: "up to three hours before balances appear". A snapshot re-read on every run: the delay is
  // recorded for completeness (there is no cursor to look back from).
  changeCapture: fieldCursor(
    { seesEdits: true, seesDeletions: true, lookbackMs: hours(3) },
    'PayPal Transaction Search reference, GET /v1/reporting/balances (up to three years back, up to three hours late)',
  ),
});

// ---------------------------------------------------------------------------------------------------------------
// transactions
// ---------------------------------------------------------------------------------------------------------------

/** States: payments transactions, filter transaction_status. */
export const TRANSACTION_STATUSES = ['D', 'P', 'S', 'V'] as const;

/** The `fields` values of GET /v1/reporting/transactions (comma-separated; `all` for everything). */
export const TRANSACTION_FIELD_GROUPS = [
  'transaction_info',
  'payer_info',
  'shipping_info',
  'auction_info',
  'cart_info',
  'incentive_info',
  'store_info',
  'all',
] as const;

const transactionInfo = t.object(fields`
  provider_account_id, transaction_id, provider_reference_id,
  provider_reference_id_type, transaction_event_code: string
  transaction_initiation_date, transaction_updated_date: datetime
  transaction_status: ${t.string({ enum: TRANSACTION_STATUSES })}
  transaction_subject, transaction_note, invoice_id, custom_field, protection_eligibility: string
  transaction_amount, fee_amount, insurance_amount, shipping_amount, shipping_discount_amount: ${amount()}
`);

const payerInfo = t.object(fields`
  account_id, email_address, address_status, payer_status, country_code: string
  payer_name: { given_name, surname, alternate_full_name: string }
`);

const shippingInfo = t.object(fields`
  name: string
  address: { line1, line2, city, country_code, postal_code: string }
`);

const cartInfo = t.object(fields`
  item_details: {
    item_code, item_name, item_description, item_quantity, invoice_number: string
    item_unit_price, item_amount, total_item_amount: ${amount()}
    tax_amounts: array
  }[]
  tax_inclusive: boolean
  provider_invoice_id: string
`);

const auctionInfo = t.object(fields`
  auction_site, auction_item_site, auction_buyer_id: string
  auction_closing_date: datetime
`);

const incentiveInfo = t.object(fields`
  incentive_details: {
    incentive_type, incentive_code, incentive_program_code: string
    incentive_amount: ${amount()}
  }[]
`);

const storeInfo = t.object(fields`store_id, terminal_id: string`);

/**
 * Top-level transaction_id and transaction_updated_date are copies of the transaction_info fields that the
 * connector adds to every record (the catalog lists them at the top level).
 */
const transactionRecord: FieldMap = plain(fields`
  transaction_info: ${transactionInfo}
  payer_info: ${payerInfo}
  shipping_info: ${shippingInfo}
  cart_info: ${cartInfo}
  auction_info: ${auctionInfo}
  incentive_info: ${incentiveInfo}
  store_info: ${storeInfo}
  transaction_id: string
  transaction_updated_date: datetime
`);

/** PayPal's limits: "range at most 31 days". */
export const MAX_TRANSACTION_RANGE_DAYS = 31;

const transactionsListParams = z
  .strictObject({
    start_date: dateTimeWithSeconds,
    end_date: dateTimeWithSeconds,
    transaction_id: z.string().min(17).max(19).optional(),
    // PayPal transaction event codes: T followed by four digits, e.g. T0006.
    transaction_type: z
      .string()
      .regex(/^T\d{4}$/, 'must be a transaction event code, e.g. T0006')
      .optional(),
    transaction_status: z.enum(TRANSACTION_STATUSES).optional(),
    transaction_currency: currencyCode.optional(),
    fields: z
      .string()
      .refine(
        (v) => v.split(',').every((part) => (TRANSACTION_FIELD_GROUPS as readonly string[]).includes(part.trim())),
        `must be a comma-separated list of ${TRANSACTION_FIELD_GROUPS.join(', ')}`,
      )
      .optional(),
    page_size: z.int().min(1).max(500).optional(),
    page: z.int().min(1).optional(),
    balance_affecting_records_only: z.enum(['Y', 'N']).optional(),
  })
  .superRefine((p, ctx) => {
    const start = instantOf(p.start_date);
    const end = instantOf(p.end_date);
    if (Number.isNaN(start) || Number.isNaN(end)) return;
    if (end <= start) {
      ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'must be after start_date' });
    } else if (end - start > MAX_TRANSACTION_RANGE_DAYS * DAY_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['end_date'],
        message: `must be at most ${MAX_TRANSACTION_RANGE_DAYS} days after start_date`,
      });
    }
  });

const transactions: EntityCatalog = {
  name: 'transactions',
  recordKey: 'transaction_info.transaction_id',
  // `{transaction_details, page, total_items, total_pages}`: numbered pages, more while page < total_pages
  // (https://developer.paypal.com/docs/api/transaction-search/v1/#transactions_get). Replication's 31-day windows
  // are the connector's own.
  upstream: {
    path: 'v1/reporting/transactions',
    records: 'transaction_details',
    paging: { type: 'page_number', param: 'page', totalPagesAt: 'total_pages' },
    meta: { total_items: 'total_items', total_pages: 'total_pages', page: 'page' },
  },
  record: transactionRecord,
  meta: plain(fields`total_items, total_pages, page: integer`),
  searchable: plain(fields`
    auction_info: ${auctionInfo}
    cart_info: ${cartInfo}
    incentive_info: ${incentiveInfo}
    payer_info: ${payerInfo}
    shipping_info: ${shippingInfo}
    store_info: ${storeInfo}
    transaction_info: ${transactionInfo}
    transaction_id: string
    // Searchable at the top level but absent from the catalog's record list: the connector copies it from
    // transaction_info like transaction_id and transaction_updated_date.
    transaction_initiation_date, transaction_updated_date: datetime
  `),
  actions: { list: transactionsListParams },
  // The reporting API filters by date in 31-day windows; the cursor is the update date.
  sync: { mode: 'incremental', cursorField: 'transaction_info.transaction_updated_date' },
  // start_date/end_date filter on the transaction's initiation date (PayPal "List transactions" reference; AWS Glue
  // PayPal connector notes), so a later status change (P → S, a reversal V) of an older transaction does not reach
  // an incremental read: edits need the full pass. Transactions are never deleted (a refund or reversal is a
  // transaction of its own). "It takes a maximum of three hours for executed transactions to appear in the list
  // transactions call" (PayPal reference; PayPal's limits): incremental runs re-read 3 hours behind the cursor.
  changeCapture: fieldCursor(
    { seesEdits: false, seesDeletions: true, lookbackMs: hours(3) },
    'https://developer.paypal.com/docs/api/transaction-search/v1/search-get/ (3 h delay; filter on initiation date)',
  ),
};

// ---------------------------------------------------------------------------------------------------------------
// list_payments, list_disputes, list_products, show_product_details, search_invoices
// ---------------------------------------------------------------------------------------------------------------

/**
 * List params of the lists read by a time window and a page token (payments, disputes), all optional: the window's
 * two ISO 8601 bounds, a page size up to the list's maximum, and the token of the next page.
 */
function windowParams(
  [from, to]: readonly [string, string],
  [pageSize, maxPageSize]: readonly [string, number],
  pageToken: string,
): ParamsSchema {
  return z.strictObject({
    [from]: isoDateTime.optional(),
    [to]: isoDateTime.optional(),
    [pageSize]: z.int().min(1).max(maxPageSize).optional(),
    [pageToken]: z.string().min(1).optional(),
  });
}

const paymentRecord: FieldMap = plain(fields`
  id, intent, state, cart: string
  create_time, update_time: datetime
  payer: object
  transactions, links: object[]
`);

/** GET /v1/payments/payment: a creation-time window, then `count` payments a page from `start_id`. */
const paymentListParams = windowParams(['start_time', 'end_time'], ['count', 20], 'start_id');

/**
 * GET /v1/payments/payment filters with start_time on the creation time (PayPal Payments v1 reference): an older
 * payment updated later is outside the window, so edits need the full pass. Payments cannot be deleted.
 */
const paymentsSeen = fieldCursor(
  { seesEdits: false, seesDeletions: true },
  'PayPal Payments v1 reference, GET /v1/payments/payment (start_time = creation time); the vendor API reference',
);

const listPayments = entity({
  name: 'list_payments',
  upstream: {
    // https://developer.paypal.com/docs/api/payments/v1/#payment_list: the next page starts at `start_id` = next_id;
    // an empty (or missing) next_id ends the list. start_time bounds the creation time; sort_by=update_time keeps
    // the pages in the catalog's cursor order.
    path: 'v1/payments/payment',
    records: 'payments',
    paging: { type: 'page_token', param: 'start_id', nextAt: 'next_id', meta: 'next_id' },
    read: {
      params: { count: 20, sort_by: 'update_time', sort_order: 'asc' },
      since: { param: 'start_time', format: 'seconds' },
    },
  },
  record: paymentRecord,
  // GET /v1/payments/payment answers {payments, count, next_id}; next_id is the start_id of the next page.
  meta: plain(fields`next_id: string`),
  actions: { list: paymentListParams },
  // The upstream sorts by update_time (sort_by=update_time), as the vendor's reference replication does.
  sync: { mode: 'incremental', cursorField: 'update_time' },
  changeCapture: paymentsSeen,
});

const disputeRecord: FieldMap = plain(fields`
  dispute_id: string
  create_time, update_time: datetime
  status, reason, dispute_state, dispute_life_cycle_stage, dispute_channel, outcome: string
  dispute_amount: ${amount()}
  disputed_transactions, links: object[]
`);

/** GET /v1/customer/disputes: an update-time window, then `page_size` disputes a page from `next_page_token`. */
const disputeListParams = windowParams(
  ['update_time_after', 'update_time_before'],
  ['page_size', 50],
  'next_page_token',
);

/**
 * A real "updated since" filter (update_time_after; the connector filters client-side beyond its 180 days). Disputes
 * are never deleted, only closed (an edit).
 */
const disputesSeen = fieldCursor(
  { seesEdits: true, seesDeletions: true },
  'PayPal Disputes v1 reference, GET /v1/customer/disputes update_time_after',
);

const listDisputes: EntityCatalog = {
  name: 'list_disputes',
  recordKey: 'dispute_id',
  // https://developer.paypal.com/docs/api/customer-disputes/v1/: `{items, links}`; the next page's next_page_token
  // is in the query of the rel="next" link (an empty page leaves items out).
  upstream: {
    path: 'v1/customer/disputes',
    records: 'items',
    paging: { type: 'body_link', param: 'next_page_token', linksAt: 'links' },
  },
  record: disputeRecord,
  meta: plain(fields`next_page_token: string`),
  searchable: plain({
    ...disputeRecord,
    // Searchable but not a record field in the catalog: the update time cut to the precision PayPal filters by
    // (the vendor's reference replication adds it); the connector fills it from update_time.
    updated_time_cut: t.datetime(),
  }),
  actions: { list: disputeListParams },
  // The upstream filters by update_time_after.
  sync: { mode: 'incremental', cursorField: 'update_time' },
  changeCapture: disputesSeen,
};

const productRecord: FieldMap = plain(fields`
  id, name, description: string
  create_time: datetime
  links: object[]
`);

const pageMeta: FieldMap = plain(fields`total_items, total_pages: integer`);

/** page/page_size lists with total_required=true: `{<key>: [...], total_items, total_pages}` (an empty page leaves the key out). */
function pagedList(path: string, key: string): UpstreamSpec {
  return {
    path,
    records: key,
    paging: { type: 'page_number', param: 'page', totalPagesAt: 'total_pages' },
    meta: { total_items: 'total_items', total_pages: 'total_pages' },
    constantQuery: { total_required: 'true' },
  };
}

const listProducts = entity({
  name: 'list_products',
  upstream: { ...pagedList('v1/catalogs/products', 'products'), read: { params: { page_size: 20, page: 1 } } },
  record: productRecord,
  meta: pageMeta,
  actions: {
    list: z.strictObject({
      page_size: z.int().min(1).max(20).optional(),
      page: z.int().min(1).optional(),
    }),
  },
  // The products list has no date filter.
  sync: { mode: 'full_refresh' },
});

const productDetailsRecord: FieldMap = plain(fields`
  id, name, description, type, category, image_url, home_url: string
  create_time, update_time: datetime
  links: object[]
`);

const showProductDetails = entity({
  name: 'show_product_details',
  record: productDetailsRecord,
  actions: { get: z.strictObject({ id: pathId }) },
  // No list exists: replication gets the details of every product of list_products.
  sync: { mode: 'full_refresh', parent: { entity: 'list_products', param: 'id', from: 'id' } },
});

const invoiceRecord: FieldMap = plain(fields`
  id, status: string
  detail, invoicer, amount, configuration, payments, refunds: object
  due_amount: ${amount()}
  primary_recipients: object[]
  additional_recipients: string[]
  items, links: object[]
`);

const searchInvoices = entity({
  name: 'search_invoices',
  upstream: {
    ...pagedList('v2/invoicing/search-invoices', 'items'),
    read: { params: { page_size: 100, page: 1 } },
  },
  record: invoiceRecord,
  meta: pageMeta,
  // The catalog's list (items is a record field but not searchable). gratuity is the invoice's top-level gratuity
  // Amount; last_update_time is detail.metadata.last_update_time, which the connector copies to the top level.
  searchable: plain({
    ...omit(invoiceRecord, ['items']),
    gratuity: t.object(),
    last_update_time: t.datetime(),
  }),
  actions: {
    list: z.strictObject({
      creation_date_range: z
        .strictObject({ start: isoDateTime, end: isoDateTime })
        .refine((r) => Date.parse(r.end) > Date.parse(r.start), { path: ['end'], message: 'must be after start' })
        .optional(),
      page_size: z.int().min(1).max(100).optional(),
      page: z.int().min(1).optional(),
    }),
  },
  // The search filters by creation date only, and invoices change after creation (payments, refunds): full refresh.
  sync: { mode: 'full_refresh' },
});

// ---------------------------------------------------------------------------------------------------------------
// Credentials, replication_config
// ---------------------------------------------------------------------------------------------------------------

/**
 * The OAuth method (the only one): client_id and client_secret are required;
 * access_token, from a client-credentials grant, is optional (the connector obtains one when it is absent).
 */
const credentials = z.strictObject({
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  access_token: z.string().min(1).optional(),
});

/** start_date must lie between 3 years ago and 12 hours before the present time (evaluated at parse). */
export const paypalReplicationConfig = z.strictObject({
  start_date: isoDateTime.superRefine((value, ctx) => {
    const now = new Date();
    const at = Date.parse(value);
    if (at < yearsBefore(now, 3)) {
      ctx.addIssue({ code: 'custom', message: 'must not be more than 3 years ago' });
    } else if (at > now.getTime() - 12 * HOUR_MS) {
      ctx.addIssue({ code: 'custom', message: 'must be at least 12 hours before now' });
    }
  }),
});

export const paypalTransactionCatalog = defineCatalog({
  connectorType: 'Paypal-Transaction',
  copyVersion: {
    by: 'read_instant',
    why: '`transaction_updated_date` has whole-second precision and other entities (balances, products) have no modification time; removals carry none.',
    source: 'https://developer.paypal.com/docs/api/transaction-search/v1/',
  },
  rateLimit: {
    perSecond: null,
    scope: 'not published: PayPal rate limits by traffic pattern and answers 429 RATE_LIMIT_REACHED',
    source: 'https://developer.paypal.com/api/rest/reference/rate-limiting/',
  },
  purpose: 'payments',
  // Client credentials only, the client as HTTP Basic (`curl -u "CLIENT_ID:CLIENT_SECRET"`): no consent flow.
  // https://developer.paypal.com/api/rest/authentication/
  auth: { tokenUrl: 'https://api-m.paypal.com/v1/oauth2/token', clientAuth: 'basic' },
  credentials,
  replicationConfig: paypalReplicationConfig,
  config: noConfig,
  entities: {
    balances,
    transactions,
    list_payments: listPayments,
    list_disputes: listDisputes,
    list_products: listProducts,
    show_product_details: showProductDetails,
    search_invoices: searchInvoices,
  },
});
