import { clientCredentialsAuth } from '../../core/auth.ts';
import {
  type ContextOf,
  defineConnector,
  type EntityOperations,
  type ListPage,
  type Params,
} from '../../core/define-connector.ts';
import { UpstreamError } from '../../core/errors.ts';
import { pathOf, type QueryValue } from '../../core/http-client.ts';
import { readDeclared } from '../../core/listing.ts';
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

type PaypalContext = ContextOf<typeof paypalTransactionCatalog>;

const DAY = 86_400_000;

const query = (params: Params): Record<string, QueryValue> => params as Record<string, QueryValue>;

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

/** The invoice search filters through its JSON body (no filter is `{}`); the day range of replication is a filter. */
const searchInvoices: EntityOperations<PaypalContext> = {
  hooks: {
    body: (params) => (params.creation_date_range ? { creation_date_range: params.creation_date_range } : {}),
    query: ({ creation_date_range: _range, ...query }) => query,
    record: toInvoice,
  },
  // Invoices created since start_date (the only filter the search has), every run (full refresh).
  read: (ctx, request) => {
    const range = { start: paypalDate(instant(request.since)), end: paypalDate(Date.now()) };
    const spec = paypalTransactionCatalog.entities.search_invoices!.upstream!;
    const withRange = { ...spec, read: { params: { ...spec.read?.params, creation_date_range: range } } };
    return readDeclared(ctx, withRange, request, searchInvoices.hooks);
  },
};

/** The details of one product; replication reads them per product of list_products (gone since: nothing). */
const productPath = (id: unknown) => `v1/catalogs/products/${pathOf(String(id))}`;

export const paypalTransactionConnector = defineConnector({
  catalog: paypalTransactionCatalog,
  defaultBaseUrl: 'https://api-m.paypal.com',
  auth: ({ credentials, settings, tokenCache }) =>
    clientCredentialsAuth({
      tokenUrl: settings.tokenUrl ?? paypalTransactionCatalog.tokenUrl!,
      clientId: credentials.client_id,
      clientSecret: credentials.client_secret,
      accessToken: credentials.access_token,
      cache: tokenCache,
      ...(settings.fetch ? { fetch: settings.fetch } : {}),
    }),
  entities: {
    balances,
    transactions,
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
    show_product_details: {
      get: (ctx, params) => ctx.http.json({ path: productPath(params.id), signal: ctx.signal }),
      // A child of list_products: the details of one product (gone since it was listed: nothing).
      read: async function* (ctx, request) {
        const id = request.parentParams?.id;
        if (typeof id !== 'string' && typeof id !== 'number') {
          throw new Error('show_product_details is read per product: parentParams.id is required');
        }
        try {
          const record = await ctx.http.json<Record<string, unknown>>({ path: productPath(id), signal: ctx.signal });
          yield { records: [record], checkpoint: null };
        } catch (error) {
          if (!(error instanceof UpstreamError && error.code === 'upstream_not_found')) throw error;
          yield { records: [], checkpoint: null };
        }
      },
    },
    search_invoices: searchInvoices,
  },
});
