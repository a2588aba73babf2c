import { clientCredentialsAuth } from '../../core/auth.ts';
import {
  type ConnectorContext,
  defineConnector,
  type EntityOperations,
  type ListPage,
  type Params,
} from '../../core/define-connector.ts';
import { UpstreamError } from '../../core/errors.ts';
import { pathOf, type QueryValue } from '../../core/http-client.ts';
import { readByListing, recordsAt } from '../../core/paging.ts';
import { paypalTransactionCatalog } from './catalog.ts';
import {
  instant,
  listTransactions,
  nextPageToken,
  paypalDate,
  readTransactions,
  toDispute,
  toInvoice,
} from './mapping.ts';

/*
 * PayPal REST APIs (https://developer.paypal.com/api/rest/), base https://api-m.paypal.com.
 * Auth: client-credentials grant at /v1/oauth2/token with HTTP Basic client_id:client_secret; the bearer token
 * (~9 h) is cached by the runtime's TokenCache and fetched again after a 401.
 */

type PaypalCredentials = { client_id: string; client_secret: string; access_token?: string };
type PaypalContext = ConnectorContext<PaypalCredentials, Record<string, never>>;

const TOKEN_URL = 'https://api-m.paypal.com/v1/oauth2/token';
const DAY = 86_400_000;

const query = (params: Params): Record<string, QueryValue> => params as Record<string, QueryValue>;
const num = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/** page/page_size lists with total_required=true: `{<key>: [...], total_items, total_pages}`. */
function pagedList(
  path: string,
  key: string,
  options: {
    method?: 'POST';
    body?: (params: Params) => unknown;
    map?: (r: Record<string, unknown>) => Record<string, unknown>;
  } = {},
) {
  return async (ctx: PaypalContext, params: Params): Promise<ListPage> => {
    const { creation_date_range: _range, ...paging } = params;
    const body = await ctx.http.json<Record<string, unknown>>({
      method: options.method ?? 'GET',
      path,
      query: { ...query(paging), total_required: 'true' },
      ...(options.body ? { json: options.body(params) } : {}),
      signal: ctx.signal,
    });
    const page = num(params.page) ?? 1;
    const totalPages = num(body.total_pages) ?? 1;
    // An empty page leaves the list key out.
    const records = body[key] === undefined ? [] : recordsAt(body, key);
    return {
      records: options.map ? records.map(options.map) : records,
      meta: { total_items: num(body.total_items), total_pages: totalPages },
      next: page < totalPages ? { ...params, page: page + 1 } : null,
    };
  };
}

const balances: EntityOperations<PaypalContext> = {
  // GET /v1/reporting/balances answers one object for the account: one record.
  list: async (ctx, params) => {
    const body = await ctx.http.json<Record<string, unknown>>({
      path: 'v1/reporting/balances',
      query: query(params),
      signal: ctx.signal,
    });
    return { records: [body], meta: {}, next: null };
  },
  read: async function* (ctx) {
    const body = await ctx.http.json<Record<string, unknown>>({ path: 'v1/reporting/balances', signal: ctx.signal });
    yield { records: [body], checkpoint: null };
  },
};

const transactions: EntityOperations<PaypalContext> = {
  list: listTransactions,
  read: (ctx, request) => readTransactions(ctx, request.since, request.resume),
};

/**
 * GET /v1/payments/payment: `{payments, count, next_id}`; the next page starts at `start_id` = next_id, and an
 * empty (or missing) next_id ends the list (https://developer.paypal.com/docs/api/payments/v1/#payment_list).
 */
async function listPayments(ctx: PaypalContext, params: Params): Promise<ListPage> {
  const body = await ctx.http.json<Record<string, unknown>>({
    path: 'v1/payments/payment',
    query: query(params),
    signal: ctx.signal,
  });
  const nextId = typeof body.next_id === 'string' && body.next_id !== '' ? body.next_id : null;
  return {
    records: body.payments === undefined ? [] : recordsAt(body, 'payments'),
    meta: { next_id: nextId },
    next: nextId ? { ...params, start_id: nextId } : null,
  };
}

/** Disputes page with a next_page_token found in the `next` link (https://developer.paypal.com/docs/api/customer-disputes/v1/). */
async function listDisputes(ctx: PaypalContext, params: Params): Promise<ListPage> {
  const body = await ctx.http.json<Record<string, unknown>>({
    path: 'v1/customer/disputes',
    query: query(params),
    signal: ctx.signal,
  });
  const token = nextPageToken(body);
  return {
    records: (body.items === undefined ? [] : recordsAt(body, 'items')).map(toDispute),
    meta: { next_page_token: token },
    next: token ? { ...params, next_page_token: token } : null,
  };
}

/** PayPal filters disputes by update_time_after only within the last 180 days (research file). */
const DISPUTE_FILTER_DAYS = 180;

const listProducts = pagedList('v1/catalogs/products', 'products');

const searchInvoices = pagedList('v2/invoicing/search-invoices', 'items', {
  method: 'POST',
  // The search filters through its JSON body; no filter is `{}`.
  body: (params) => (params.creation_date_range ? { creation_date_range: params.creation_date_range } : {}),
  map: toInvoice,
});

export const paypalTransactionConnector = defineConnector<PaypalCredentials, Record<string, never>>({
  catalog: paypalTransactionCatalog,
  defaultBaseUrl: 'https://api-m.paypal.com',
  auth: ({ credentials, settings, tokenCache }) =>
    clientCredentialsAuth({
      tokenUrl: settings.tokenUrl ?? TOKEN_URL,
      clientId: credentials.client_id,
      clientSecret: credentials.client_secret,
      accessToken: credentials.access_token,
      cache: tokenCache,
      ...(settings.fetch ? { fetch: settings.fetch } : {}),
    }),
  entities: {
    balances,
    transactions,
    list_payments: {
      list: listPayments,
      // start_time bounds the creation time; sort_by=update_time keeps the pages in the catalog's cursor order.
      read: (ctx, request) =>
        readByListing(
          (p) => listPayments(ctx, p),
          { count: 20, start_time: paypalDate(instant(request.since)), sort_by: 'update_time', sort_order: 'asc' },
          request.resume,
        ),
    },
    list_disputes: {
      list: listDisputes,
      read: (ctx, request) => {
        const since = instant(request.since);
        // Older than the filter allows: read every dispute and keep those updated since then.
        const filtered = since >= Date.now() - (DISPUTE_FILTER_DAYS - 1) * DAY;
        const first: Params = filtered
          ? { page_size: 50, update_time_after: new Date(since).toISOString() }
          : { page_size: 50 };
        return (async function* () {
          for await (const page of readByListing((p) => listDisputes(ctx, p), first, request.resume)) {
            yield {
              ...page,
              records: filtered ? page.records : page.records.filter((r) => instant(r.update_time) >= since),
            };
          }
        })();
      },
    },
    list_products: {
      list: listProducts,
      read: (ctx, request) => readByListing((p) => listProducts(ctx, p), { page_size: 20, page: 1 }, request.resume),
    },
    show_product_details: {
      get: (ctx, params) =>
        ctx.http.json({ path: `v1/catalogs/products/${pathOf(String(params.id))}`, signal: ctx.signal }),
      // A child of list_products: the details of one product (gone since it was listed: nothing).
      read: async function* (ctx, request) {
        const id = request.parentParams?.id;
        if (typeof id !== 'string' && typeof id !== 'number') {
          throw new Error('show_product_details is read per product: parentParams.id is required');
        }
        try {
          const record = await ctx.http.json<Record<string, unknown>>({
            path: `v1/catalogs/products/${pathOf(String(id))}`,
            signal: ctx.signal,
          });
          yield { records: [record], checkpoint: null };
        } catch (error) {
          if (!(error instanceof UpstreamError && error.code === 'upstream_not_found')) throw error;
          yield { records: [], checkpoint: null };
        }
      },
    },
    search_invoices: {
      list: searchInvoices,
      // Invoices created since start_date (the only filter the search has), every run (full refresh).
      read: (ctx, request) =>
        readByListing(
          (p) => searchInvoices(ctx, p),
          {
            page_size: 100,
            page: 1,
            creation_date_range: { start: paypalDate(instant(request.since)), end: paypalDate(Date.now()) },
          },
          request.resume,
        ),
    },
  },
});
