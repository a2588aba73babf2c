import { clientCredentialsAuth } from '../../core/auth.ts';
import { type ContextOf, defineConnector, type EntityOperations, type Params } from '../../core/define-connector.ts';
import { UpstreamError } from '../../core/errors.ts';
import { pathOf } from '../../core/http-client.ts';
import { listDeclared, readDeclared, readListing } from '../../core/listing.ts';
import { paypalTransactionCatalog } from './catalog.ts';
import { instant, paypalDate, readTransactions, toDispute, toInvoice, toTransaction } from './mapping.ts';

/*
 * PayPal REST APIs (https://developer.paypal.com/api/rest/), base https://api-m.paypal.com.
 * Auth: client-credentials grant at /v1/oauth2/token with HTTP Basic client_id:client_secret; the bearer token
 * (~9 h) is cached by the runtime's TokenCache and fetched again after a 401.
 */

type PaypalContext = ContextOf<typeof paypalTransactionCatalog>;

const DAY = 86_400_000;

const { transactions, list_disputes: disputes, search_invoices: invoices } = paypalTransactionCatalog.entities;

/**
 * Balances, transactions and disputes list as declared in the catalog. What stays here is PayPal's own: the record
 * shapes (mapping.ts), the 31-day windows of transaction replication (readTransactions) and the 180-day limit of
 * the disputes filter.
 */
const transactionHooks = { record: toTransaction };
const disputeHooks = { record: toDispute };

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
    const spec = invoices!.upstream!;
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
      tokenUrl: settings.tokenUrl ?? paypalTransactionCatalog.auth!.tokenUrl,
      clientId: credentials.client_id,
      clientSecret: credentials.client_secret,
      clientAuth: paypalTransactionCatalog.auth!.clientAuth,
      accessToken: credentials.access_token,
      cache: tokenCache,
      ...(settings.fetch ? { fetch: settings.fetch } : {}),
    }),
  authAsData: {
    type: 'oauth2',
    grant: 'client_credentials',
    token_url: paypalTransactionCatalog.auth!.tokenUrl,
    client_auth: paypalTransactionCatalog.auth!.clientAuth,
  },
  entities: {
    transactions: {
      hooks: transactionHooks,
      read: (ctx, request) =>
        readTransactions(
          (params) => listDeclared(ctx, transactions!.upstream!, params, transactionHooks),
          request.since,
          request.resume,
        ),
    },
    list_disputes: {
      hooks: disputeHooks,
      // The declared list, but replication chooses its filter: the upstream's update_time_after within its 180 days.
      read: (ctx, request) => {
        const since = instant(request.since);
        // Older than the filter allows: read every dispute and keep those updated since then.
        const filtered = since >= Date.now() - (DISPUTE_FILTER_DAYS - 1) * DAY;
        const first: Params = filtered
          ? { page_size: 50, update_time_after: new Date(since).toISOString() }
          : { page_size: 50 };
        return (async function* () {
          for await (const page of readListing(ctx, disputes!.upstream!, first, request.resume, disputeHooks)) {
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
