import { Hono } from 'hono';
import { basicCredentials, bearerToken } from '../kit/auth-header.ts';
import { FaultInjector } from '../kit/faults.ts';
import { kindOptions, type SimulatorHandle, type SimulatorOptions, simulatorHandle } from '../kit/fixture.ts';
import { listen, type RunningServer } from '../kit/server.ts';
import { generatePaypalData, type PaypalData, type PaypalDataOptions } from './data.ts';
import { DAY, failure, invalid, pageParams, parse } from './http.ts';
import { mountReporting } from './reporting.ts';

export interface PaypalSimulatorOptions extends PaypalDataOptions {
  port?: number;
  /** Results a transactions search may hold before 400 RESULTSET_TOO_LARGE (PayPal: 10,000). */
  maxResults?: number;
}

export interface PaypalSimulator extends RunningServer {
  readonly data: PaypalData;
  readonly faults: FaultInjector;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Access tokens issued by the token endpoint, in order. */
  readonly issuedTokens: string[];
  /** Makes every issued token invalid (as after expiry): the next call gets 401 and needs a new one. */
  expireTokens(): void;
}

/**
 * PayPal REST APIs as the connector meets them: client-credentials tokens, transaction search in 31-day windows
 * with RESULTSET_TOO_LARGE, next_id / next_page_token / page paging, the invoice search's JSON body filter.
 */
export async function startPaypalTransactionSimulator(options: PaypalSimulatorOptions = {}): Promise<PaypalSimulator> {
  const data = generatePaypalData(options);
  const maxResults = options.maxResults ?? 10_000;
  const faults = new FaultInjector();
  const clientId = 'pp-client-AZ3';
  const clientSecret = 'pp-secret-EL9x7q';
  const issuedTokens: string[] = [];
  const valid = new Set<string>();

  const app = new Hono();
  app.use(
    '*',
    faults.middleware((status) =>
      status === 429
        ? failure('RATE_LIMIT_REACHED', 'Too many requests. Blocked due to rate limiting.')
        : failure('INTERNAL_SERVER_ERROR', 'An internal server error has occurred.'),
    ),
  );

  app.post('/v1/oauth2/token', async (c) => {
    const form = new URLSearchParams(await c.req.text());
    const client = basicCredentials(c.req.header('authorization'));
    if (client?.user !== clientId || client.password !== clientSecret) {
      return c.json({ error: 'invalid_client', error_description: 'Client Authentication failed' }, 401);
    }
    if (form.get('grant_type') !== 'client_credentials') return c.json({ error: 'unsupported_grant_type' }, 400);
    const token = `A21AA-${issuedTokens.length + 1}-${Date.now().toString(36)}`;
    issuedTokens.push(token);
    valid.add(token);
    return c.json({
      scope: 'https://uri.paypal.com/services/reporting/search/read',
      access_token: token,
      token_type: 'Bearer',
      app_id: 'APP-80W284485P519543T',
      expires_in: 32400,
      nonce: 'n',
    });
  });

  app.use('/v1/*', async (c, next) => {
    const token = bearerToken(c.req.header('authorization')) ?? '';
    if (!valid.has(token))
      return c.json({ error: 'invalid_token', error_description: 'Token signature verification failed' }, 401);
    await next();
  });
  app.use('/v2/*', async (c, next) => {
    const token = bearerToken(c.req.header('authorization')) ?? '';
    if (!valid.has(token))
      return c.json({ error: 'invalid_token', error_description: 'Token signature verification failed' }, 401);
    await next();
  });

  mountReporting(app, data, maxResults);

  // https://developer.paypal.com/docs/api/payments/v1/#payment_list: start_time/end_time bound the creation time.
  app.get('/v1/payments/payment', (c) => {
    const q = new URL(c.req.url).searchParams;
    const count = Number(q.get('count') ?? 10);
    if (!Number.isInteger(count) || count < 1 || count > 20) return invalid(c, 'count', 'INVALID_PARAMETER_VALUE');
    const from = q.get('start_time') ? Date.parse(String(q.get('start_time'))) : -Infinity;
    const to = q.get('end_time') ? Date.parse(String(q.get('end_time'))) : Infinity;
    const sortBy = q.get('sort_by') === 'update_time' ? 'update_time' : 'create_time';
    const sign = q.get('sort_order') === 'asc' ? 1 : -1;
    const rows = data.payments
      .filter((p) => Date.parse(p.create_time) >= from && Date.parse(p.create_time) < to)
      .sort((a, b) => sign * a[sortBy].localeCompare(b[sortBy]) || a.id.localeCompare(b.id));
    let offset = 0;
    const startId = q.get('start_id');
    if (startId) {
      offset = rows.findIndex((p) => p.id === startId);
      if (offset < 0) return invalid(c, 'start_id', 'INVALID_RESOURCE_ID');
    }
    const page = rows.slice(offset, offset + count);
    const next = rows[offset + count];
    return c.json({ payments: page, count: page.length, ...(next ? { next_id: next.id } : { next_id: '' }) });
  });

  // https://developer.paypal.com/docs/api/customer-disputes/v1/#disputes_list
  app.get('/v1/customer/disputes', (c) => {
    const url = new URL(c.req.url);
    const q = url.searchParams;
    const size = Number(q.get('page_size') ?? 10);
    if (!Number.isInteger(size) || size < 1 || size > 50) return invalid(c, 'page_size', 'INVALID_PARAMETER_VALUE');
    const after = q.get('update_time_after');
    const before = q.get('update_time_before');
    if (after !== null && (Number.isNaN(Date.parse(after)) || Date.parse(after) < data.anchor - 180 * DAY)) {
      return invalid(c, 'update_time_after', 'The date must be within the last 180 days');
    }
    const rows = data.disputes
      .filter(
        (d) =>
          (!after || Date.parse(d.update_time) >= Date.parse(after)) &&
          (!before || Date.parse(d.update_time) < Date.parse(before)),
      )
      .sort((a, b) => b.update_time.localeCompare(a.update_time) || a.dispute_id.localeCompare(b.dispute_id));
    const token = q.get('next_page_token');
    const offset = token ? Number(Buffer.from(token, 'base64url').toString()) : 0;
    if (!Number.isInteger(offset) || offset < 0) return invalid(c, 'next_page_token', 'INVALID_PARAMETER_VALUE');
    const page = rows.slice(offset, offset + size);
    const links = [{ href: url.toString(), rel: 'self', method: 'GET' }];
    if (offset + size < rows.length) {
      const next = new URL(url);
      next.searchParams.set('next_page_token', Buffer.from(String(offset + size)).toString('base64url'));
      links.push({ href: next.toString(), rel: 'next', method: 'GET' });
    }
    return c.json({ items: page, links });
  });

  app.get('/v1/catalogs/products', (c) => {
    const paging = pageParams(c, 10, 20);
    if (paging.error) return paging.error;
    const rows = data.products.map(({ id, name, description, create_time, links }) => ({
      id,
      name,
      description,
      create_time,
      links,
    }));
    return c.json({
      products: rows.slice((paging.page - 1) * paging.size, paging.page * paging.size),
      total_items: rows.length,
      total_pages: Math.ceil(rows.length / paging.size),
      links: [],
    });
  });
  app.get('/v1/catalogs/products/:id', (c) => {
    const found = data.products.find((p) => p.id === c.req.param('id'));
    return found ? c.json(found) : c.json(failure('RESOURCE_NOT_FOUND', 'The specified resource does not exist.'), 404);
  });

  // https://developer.paypal.com/docs/api/invoicing/v2/#invoices_search-invoices
  app.post('/v2/invoicing/search-invoices', async (c) => {
    const paging = pageParams(c, 20, 100);
    if (paging.error) return paging.error;
    const body = (await c.req.json().catch(() => null)) as {
      creation_date_range?: { start?: string; end?: string };
    } | null;
    if (body === null) return invalid(c, 'body', 'MALFORMED_REQUEST_JSON');
    const range = body.creation_date_range;
    const from = range?.start ? Date.parse(range.start) : -Infinity;
    const to = range?.end ? Date.parse(range.end) : Infinity;
    const rows = data.invoices.filter((i) => {
      const created = Date.parse(i.detail.metadata.create_time);
      return created >= from && created <= to;
    });
    return c.json({
      items: rows.slice((paging.page - 1) * paging.size, paging.page * paging.size),
      total_items: rows.length,
      total_pages: Math.max(1, Math.ceil(rows.length / paging.size)),
      links: [],
    });
  });

  app.notFound((c) => c.json(failure('NOT_FOUND', 'The specified resource does not exist.'), 404));

  const server = await listen(app, options.port ?? 0);
  return { ...server, data, faults, clientId, clientSecret, issuedTokens, expireTokens: () => valid.clear() };
}

/** The generic handle (kit/fixture.ts) over the PayPal simulator. */
export async function startPaypalTransaction(
  options: SimulatorOptions & { maxResults?: number } = {},
): Promise<SimulatorHandle> {
  const sim = await startPaypalTransactionSimulator({
    ...kindOptions(options, 'size'),
    ...(options.maxResults === undefined ? {} : { maxResults: options.maxResults }),
  });
  const { data } = sim;
  // The specification: start_date between 3 years ago and 12 hours before now; 400 days back excludes part of the data.
  const startMs = data.anchor - 400 * DAY;
  const startDate = new Date(startMs).toISOString().replace('.000Z', 'Z');
  const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
  const windowEnd = iso(data.anchor - 20 * DAY);
  // Two days around a balance-affecting transaction: a search small enough for any maxResults.
  const known = data.transactions.find((t) => t.balance_affecting)!;
  const knownAt = parse(known.transaction_info.transaction_updated_date);
  const since = (value: string) => parse(value) >= startMs || Date.parse(value) >= startMs;
  return simulatorHandle(sim, {
    connectorType: 'Paypal-Transaction',
    tokenUrl: `${sim.url}/v1/oauth2/token`,
    credentials: { client_id: sim.clientId, client_secret: sim.clientSecret },
    badCredentials: { client_id: sim.clientId, client_secret: 'pp-secret-WRONG1' },
    startDate,
    examples: [
      { entity: 'balances', action: 'list', params: { currency_code: 'USD' } },
      {
        entity: 'transactions',
        action: 'list',
        params: {
          start_date: iso(knownAt - DAY),
          end_date: iso(knownAt + DAY),
          fields: 'all',
          page_size: 100,
          transaction_id: known.transaction_info.transaction_id,
        },
      },
      { entity: 'list_payments', action: 'list', params: { count: 5 } },
      { entity: 'list_disputes', action: 'list', params: { page_size: 5 } },
      { entity: 'list_products', action: 'list', params: { page_size: 5, page: 1 } },
      { entity: 'show_product_details', action: 'get', params: { id: data.products[0]!.id } },
      {
        entity: 'search_invoices',
        action: 'list',
        params: { creation_date_range: { start: startDate, end: windowEnd }, page_size: 10, page: 1 },
      },
    ],
    expectedKeys: (entity) => {
      switch (entity) {
        case 'balances':
          return [data.accountId];
        case 'transactions':
          return data.transactions
            .filter((t) => since(t.transaction_info.transaction_updated_date))
            .map((t) => t.transaction_info.transaction_id);
        case 'list_payments':
          return data.payments.filter((p) => since(p.create_time)).map((p) => p.id);
        case 'list_disputes':
          return data.disputes.filter((d) => since(d.update_time)).map((d) => d.dispute_id);
        case 'list_products':
        case 'show_product_details':
          return data.products.map((p) => p.id);
        case 'search_invoices':
          return data.invoices.filter((i) => since(i.detail.metadata.create_time)).map((i) => i.id);
        default:
          throw new Error(`unknown entity ${entity}`);
      }
    },
  });
}
